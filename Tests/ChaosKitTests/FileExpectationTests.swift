import Foundation
import TestSupport
import XCTest

@testable import ChaosKit

/// `expect.files:` (entries of the state directory with their mode, type and owner) and
/// `requires:`: how they load, the errors for bad ones, and what a check reports.
final class FileExpectationTests: XCTestCase {
  private func files(_ entries: String) throws -> [FileExpectation] {
    try ScenarioLoader.parse("name: x\nlaunches:\n  - expect:\n      files: \(entries)\n", path: "f.yaml")
      .launches[0].expect.files
  }

  func testEntriesLoad() throws {
    let loaded = try files(
      #"[{ path: a/launch-state.json, mode: "0600", type: file, owner: root }, { path: "crash-*.json" }]"#)
    XCTAssertEqual(loaded.map(\.path), ["a/launch-state.json", "crash-*.json"])
    XCTAssertEqual(loaded[0].mode, 0o600)
    XCTAssertEqual(loaded[0].type, "file")
    XCTAssertEqual(loaded[0].owner?.uid, 0)
    XCTAssertNil(loaded[1].mode)
    XCTAssertEqual(try files(#"[{ path: d, mode: "755" }]"#)[0].mode, 0o755)
  }

  func testBadEntriesAreLocatedWithTheirCause() {
    func assertError(_ entries: String, _ message: String, line: UInt = #line) {
      XCTAssertThrowsError(try files(entries), line: line) { error in
        guard let error = error as? ScenarioError else { return XCTFail("\(error)", line: line) }
        XCTAssertEqual(error.line, 4, "\(error)", line: line)
        XCTAssertTrue(error.message.contains(message), error.message, line: line)
      }
    }
    assertError("[{ path: a, mode: 0600 }]", "mode must be a quoted octal string")
    assertError(#"[{ path: a, mode: "0800" }]"#, "is not 3 or 4 octal digits")
    assertError(#"[{ path: a, mode: "60" }]"#, "is not 3 or 4 octal digits")
    assertError("[{ path: /etc/passwd }]", "must be relative to the state directory")
    assertError("[{ path: a/../../b }]", "must be relative to the state directory")
    assertError("[{ path: '*/x' }]", "only its last component may hold * or ?")
    assertError("[{ path: a, type: fifo }]", "unknown type 'fifo'")
    assertError("[{ path: a, owner: no-such-user-here }]", "unknown user 'no-such-user-here'")
    assertError("[{ mode: \"0600\" }]", "files entry needs 'path'")
    assertError("[{ path: a, perms: \"0600\" }]", "unknown key 'perms'")
  }

  func testChecksReportMissingEntriesAndWrongModesTypesAndOwners() throws {
    let state = TemporaryDirectory("file-checks")
    try FileManager.default.createDirectory(atPath: state.file("made"), withIntermediateDirectories: true)
    chmod(state.file("made"), 0o700)
    for name in ["crash-1.json", "crash-2.json"] {
      _ = FileManager.default.createFile(atPath: state.file("made/" + name), contents: nil)
      chmod(state.file("made/" + name), 0o600)
    }
    chmod(state.file("made/crash-2.json"), 0o644)
    let passing = try files(
      #"[{ path: made, type: directory, mode: "0700" }, { path: made/crash-1.json, mode: "0600" }]"#)
    XCTAssertEqual(FileChecks.check(passing, stateDirectory: state.path), [])

    let failing = try files(
      #"[{ path: "made/crash-*.json", mode: "0600" }, { path: made, type: file }, { path: gone }, { path: made, owner: "4242" }]"#
    )
    XCTAssertEqual(
      FileChecks.check(failing, stateDirectory: state.path).map(\.message),
      [
        "expected files made/crash-2.json mode 0600, saw mode 0644",
        "expected files made a file, saw a directory",
        "expected files gone (line 4), saw no such entry in \(state.path)",
        "expected files made owned by 4242 (uid 4242, gid 4242), saw owned by uid \(getuid())",
      ])
  }

  func testRequiresTakesRootOrACapabilityName() throws {
    let scenario = try ScenarioLoader.parse(
      "name: x\nrequires: [CAP_SYS_ADMIN, root]\nlaunches:\n  - expect: {}\n", path: "r.yaml")
    XCTAssertEqual(scenario.requires.map(\.privilege), ["CAP_SYS_ADMIN", "root"])
    XCTAssertThrowsError(
      try ScenarioLoader.parse("name: x\nrequires: [SYS_ADMIN]\nlaunches:\n  - expect: {}\n", path: "r.yaml")
    ) { error in
      XCTAssertTrue("\(error)".contains("r.yaml:2:12"), "\(error)")
      XCTAssertTrue("\(error)".contains("unknown privilege 'SYS_ADMIN'"), "\(error)")
    }
  }
}
