import Foundation
import XCTest

@testable import ChaosKit

/// `stdout_contains:`, `stdout_lacks:`, `stderr_contains:`, `stderr_lacks:`: how they load, the
/// line-matching rule, and the failure messages (what was expected, what was seen).
final class ScenarioLoaderOutputTests: XCTestCase {
  private func expectation(_ fields: String) throws -> OutputExpectation {
    try ScenarioLoader.parse("name: x\nlaunches:\n  - expect: { \(fields) }\n", path: "o.yaml").launches[0].expect
      .output
  }

  func testEachKeyLoadsItsTextsInOrder() throws {
    let output = try expectation(
      "stdout_contains: [a, b], stdout_lacks: [c], stderr_contains: ['5 starts'], stderr_lacks: [\"took SIGTERM\"]")
    XCTAssertEqual(output.texts[.init(stream: .stdout, rule: .contains)], ["a", "b"])
    XCTAssertEqual(output.texts[.init(stream: .stdout, rule: .lacks)], ["c"])
    XCTAssertEqual(output.texts[.init(stream: .stderr, rule: .contains)], ["5 starts"])
    XCTAssertEqual(output.texts[.init(stream: .stderr, rule: .lacks)], ["took SIGTERM"])
    XCTAssertTrue(try expectation("outcome: finished").isEmpty)
    XCTAssertEqual(
      OutputExpectation.keys,
      ["stdout_contains", "stdout_lacks", "stderr_contains", "stderr_lacks", "output_contains", "output_lacks"])
    let both = try expectation("output_contains: [ready], output_lacks: [stop_signal]")
    XCTAssertEqual(both.texts[.init(stream: .stdout, rule: .contains, bothStreams: true)], ["ready"])
    XCTAssertEqual(both.texts[.init(stream: .stdout, rule: .lacks, bothStreams: true)], ["stop_signal"])
  }

  func testBadEntriesAreLocated() {
    func assertError(_ fields: String, column: Int, _ message: String, line: UInt = #line) {
      XCTAssertThrowsError(try expectation(fields), line: line) { error in
        guard let error = error as? ScenarioError else { return XCTFail("\(error)", line: line) }
        XCTAssertEqual([error.line, error.column], [3, column], "\(error)", line: line)
        XCTAssertTrue(error.message.contains(message), error.message, line: line)
      }
    }
    assertError("stderr_lacks: notice", column: 29, "'stderr_lacks' must be a list")
    assertError("stderr_contains: ['']", column: 33, "stderr_contains entry is empty")
    assertError("stdout_contains: [\"a\\nb\"]", column: 33, "stdout_contains entry spans lines")
    assertError("stdout_contains: [[a]]", column: 33, "'stdout_contains entry' must be a string")
    assertError("stderr_has: [a]", column: 15, "unknown key 'stderr_has'")
  }

  func testAnEntryMatchesALineThatHoldsItCaseSensitively() {
    let lines = OutputChecks.lines(of: write("notice LaunchProtection: took SIGTERM\nready\npartial"))
    XCTAssertEqual(
      lines, ["notice LaunchProtection: took SIGTERM", "ready", "partial"], "a last line without \\n counts")
    let contains = OutputExpectation.Key(stream: .stderr, rule: .contains)
    XCTAssertNil(OutputChecks.check("took SIGTERM", key: contains, lines: lines, file: "e"))
    XCTAssertNil(OutputChecks.check("partial", key: contains, lines: lines, file: "e"))
    XCTAssertNotNil(OutputChecks.check("Took SIGTERM", key: contains, lines: lines, file: "e"), "case-sensitive")
    XCTAssertNotNil(OutputChecks.check("SIGTERM\nready", key: contains, lines: lines, file: "e"), "within one line")
    XCTAssertEqual(OutputChecks.lines(of: "/nonexistent/stderr.txt"), [])
  }

  func testFailuresNameTheExpectationAndWhatWasSeen() throws {
    let directory = NSTemporaryDirectory() + "output-\(getpid())-\(UUID().uuidString)"
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: directory) }
    try "listening\nnotice LaunchProtection: a signal handler took SIGTERM\n".write(
      toFile: directory + "/stderr.txt", atomically: true, encoding: .utf8)
    var output = OutputExpectation()
    output.texts[.init(stream: .stderr, rule: .lacks)] = ["took SIGTERM", "absent"]
    output.texts[.init(stream: .stderr, rule: .contains)] = ["listening", "5 starts in a row"]
    output.texts[.init(stream: .stdout, rule: .contains)] = ["hello"]

    let failures = OutputChecks.check(output, directory: directory)
    XCTAssertEqual(failures.map(\.kind), [.stdoutContains, .stderrContains, .stderrLacks])
    XCTAssertEqual(
      failures.map(\.message),
      [
        "expected stdout_contains 'hello', saw an empty stdout (\(directory)/stdout.txt)",
        "expected stderr_contains '5 starts in a row', saw no line holding it among 2 lines of stderr (\(directory)/stderr.txt)",
        "expected stderr_lacks 'took SIGTERM', saw it on stderr line 2: notice LaunchProtection: a signal handler took SIGTERM",
      ])
  }

  /// Under Vapor's logging the library's lines go to stdout: `stderr_lacks` would pass without
  /// looking at them, `output_lacks` reads both streams and names where it found the line.
  func testOutputKeysReadBothStreams() throws {
    let directory = NSTemporaryDirectory() + "output-both-\(getpid())-\(UUID().uuidString)"
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: directory) }
    try "[ NOTICE ] launch.event=stop_signal took SIGTERM\n".write(
      toFile: directory + "/stdout.txt", atomically: true, encoding: .utf8)
    try "listening\n".write(toFile: directory + "/stderr.txt", atomically: true, encoding: .utf8)
    var stderrOnly = OutputExpectation()
    stderrOnly.texts[.init(stream: .stderr, rule: .lacks)] = ["stop_signal"]
    XCTAssertEqual(OutputChecks.check(stderrOnly, directory: directory), [], "the gap: stderr alone misses it")

    var output = OutputExpectation()
    output.texts[.init(stream: .stdout, rule: .lacks, bothStreams: true)] = ["stop_signal"]
    output.texts[.init(stream: .stdout, rule: .contains, bothStreams: true)] = ["listening", "took SIGTERM", "absent"]
    let failures = OutputChecks.check(output, directory: directory)
    XCTAssertEqual(failures.map(\.kind), [.outputContains, .outputLacks])
    XCTAssertEqual(
      failures.map(\.message),
      [
        "expected output_contains 'absent', saw no line holding it among 2 lines of stdout and stderr "
          + "(\(directory)/stdout.txt, \(directory)/stderr.txt)",
        "expected output_lacks 'stop_signal', saw it on stdout line 1: [ NOTICE ] launch.event=stop_signal took SIGTERM",
      ])
  }

  private func write(_ text: String) -> String {
    let path = NSTemporaryDirectory() + "output-lines-\(getpid())-\(UUID().uuidString)"
    XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data(text.utf8)))
    addTeardownBlock { try? FileManager.default.removeItem(atPath: path) }
    return path
  }
}
