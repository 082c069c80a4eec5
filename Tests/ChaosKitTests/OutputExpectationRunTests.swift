import ChaosKit
import Foundation
import TestSupport
import XCTest

/// The output expectations in a real run of the reference app: a passing `stderr_contains` and
/// a failing `stderr_lacks`, whose message names the launch, the expectation and the line seen.
final class OutputExpectationRunTests: XCTestCase {
  func testAFailingStderrExpectationNamesTheLaunchTheExpectationAndTheLineSeen() throws {
    let folder = TemporaryDirectory("output-expectation")
    let artifacts = TemporaryDirectory("output-expectation-artifacts")
    let yaml = """
      name: a raw handler made during the launch is a notice the scenario did not want
      timeout: 5s
      app: { threshold: 2, sigterm_handler: during_launch, launch_log: true }
      launches:
        - failpoints: "task.config=sleep(100)"
          expect:
            outcome: finished
            stderr_contains: ["notice LaunchProtection: a signal handler took SIGTERM"]
            stdout_lacks: ["LaunchProtection"]
        - failpoints: "task.config=sleep(100)"
          expect:
            outcome: finished
            stderr_lacks: ["took SIGTERM"]
      """
    let path = folder.file("scenario.yaml")
    try yaml.write(toFile: path, atomically: true, encoding: .utf8)
    var options = RunOptions()
    options.referenceTarget = ChildProcess.product("chaos-target")
    options.artifactsDirectory = artifacts.path
    let result = ScenarioRunner(options: options).run(try ScenarioLoader.load(path: path))

    XCTAssertEqual(result.status, .failed, result.messages.joined(separator: "\n"))
    XCTAssertEqual(result.failures.map(\.kind), [.stderrLacks], "launch 1's expectations held")
    let message = try XCTUnwrap(result.messages.first)
    XCTAssertTrue(message.contains("launch 2 (line 10"), message)
    XCTAssertTrue(
      message.contains(
        "expected stderr_lacks 'took SIGTERM', saw it on stderr line 1: notice LaunchProtection: a signal handler took SIGTERM"
      ), message)
  }
}
