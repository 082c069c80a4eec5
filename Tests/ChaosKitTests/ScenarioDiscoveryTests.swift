import ChaosKit
import Foundation
import XCTest

/// Finding scenario files: a path that differs only in case, and workload files beside scenarios.
final class ScenarioDiscoveryTests: XCTestCase {
  var root = ""

  override func setUpWithError() throws {
    root = NSTemporaryDirectory() + "discovery-\(getpid())-\(UUID().uuidString.prefix(8))"
    try FileManager.default.createDirectory(atPath: root + "/Scenarios/Counting", withIntermediateDirectories: true)
    try Data("name: a\nlaunches:\n  - expect: { count: 0 }\n".utf8)
      .write(to: URL(fileURLWithPath: root + "/Scenarios/Counting/a.yaml"))
  }

  override func tearDown() { try? FileManager.default.removeItem(atPath: root) }

  func missingMessage(_ path: String) -> String {
    do {
      _ = try ScenarioDiscovery.files(in: [path])
      XCTFail("\(path) was found")
      return ""
    } catch {
      XCTAssertEqual(error.path, path)
      return error.message
    }
  }

  func testAPathThatDiffersOnlyInCaseNamesTheOneThatExists() {
    XCTAssertEqual(
      missingMessage(root + "/scenarios/"), "no such file or directory; did you mean \(root)/Scenarios/?")
    XCTAssertEqual(
      missingMessage(root + "/scenarios/counting"),
      "no such file or directory; did you mean \(root)/Scenarios/Counting?")
    XCTAssertEqual(
      missingMessage(root + "/Scenarios/counting/A.YAML"),
      "no such file or directory; did you mean \(root)/Scenarios/Counting/a.yaml?")
    // Written as given: relative stays relative.
    let relative = RelativePath.of(root + "/scenarios", from: FileManager.default.currentDirectoryPath)
    XCTAssertEqual(ScenarioDiscovery.caseInsensitiveMatch(relative), String(relative.dropLast(9)) + "Scenarios")
  }

  func testAPathWithNoCaseVariantSaysOnlyThatItIsMissing() {
    XCTAssertEqual(missingMessage(root + "/Scenarios/stops"), "no such file or directory")
    XCTAssertNil(ScenarioDiscovery.caseInsensitiveMatch(root + "/Scenarios/Counting"))
  }

  func testAWorkloadBesideTheScenariosIsNotTakenForOne() throws {
    let workload = root + "/Scenarios/explore-workload.yaml"
    try Data(
      """
      # A workload: every launch's requests (mentions name: and launches: only in comments).
      requests:
        - command: [/bin/true]
      """.utf8
    ).write(to: URL(fileURLWithPath: workload))
    XCTAssertEqual(try ScenarioDiscovery.files(in: [root + "/Scenarios"]), [root + "/Scenarios/Counting/a.yaml"])
    XCTAssertEqual(try ScenarioDiscovery.workloads(in: [root + "/Scenarios"]), [workload])
    XCTAssertEqual(try WorkloadLoader.load(path: workload).count, 1)
    // A scenario with requests stays a scenario.
    let scenario = root + "/Scenarios/served.yaml"
    try Data("name: s\nlaunches:\n  - requests:\n      - command: [/bin/true]\n".utf8)
      .write(to: URL(fileURLWithPath: scenario))
    XCTAssertFalse(WorkloadLoader.isWorkload(path: scenario))
    XCTAssertEqual(try ScenarioDiscovery.files(in: [root + "/Scenarios"]).count, 2)
  }

  /// `chaos validate .` in a package: its .build/ holds the dependencies' checkouts, whose CI
  /// workflows are YAML too (the kvd example's validate step failed on 62 of them).
  func testHiddenFoldersAreNotSearched() throws {
    for hidden in ["/Scenarios/.build/checkouts/dep/.github/workflows", "/Scenarios/.git"] {
      try FileManager.default.createDirectory(atPath: root + hidden, withIntermediateDirectories: true)
      try Data("on: push\n".utf8).write(to: URL(fileURLWithPath: root + hidden + "/ci.yml"))
    }
    try Data("on: push\n".utf8).write(to: URL(fileURLWithPath: root + "/Scenarios/.hidden.yaml"))
    XCTAssertEqual(try ScenarioDiscovery.files(in: [root + "/Scenarios"]), [root + "/Scenarios/Counting/a.yaml"])
  }
}
