import Foundation
import TestSupport
import XCTest

@testable import ChaosKit

/// A first attempt that failed in the machine, not in the target, is known by its signature,
/// and nothing else is (a target's own failure must never be run again until it passes).
final class EnvironmentFailureTests: XCTestCase {
  private func result(_ status: ScenarioResult.Status, messages: [String], processes: [ProcessResult] = [])
    -> ScenarioResult
  {
    ScenarioResult(
      path: "s.yaml", name: "s", group: "g", status: status, messages: messages, processes: processes, seconds: 0,
      artifacts: nil)
  }

  private func process(artifacts: String, failed: Bool) -> ProcessResult {
    ProcessResult(
      launch: 2, line: 1, iteration: 1, process: 1, pid: 1, end: nil, outcome: nil, relaunched: false,
      durationMilliseconds: 0, artifacts: artifacts,
      failures: failed ? [ScenarioFailure(.signal, "expected signal SIGTERM, saw timeout")] : [])
  }

  /// A container runtime that made no container was the harness's own race (two probes in
  /// one folder), not the machine: such an error is never run again.
  func testOnlyTheKnownSignatureIsTheMachine() {
    let error = result(
      .error, messages: ["runc cannot run a container here (runc run ended exit(1) without creating container c-1)"])
    XCTAssertNil(error.environmentFailure)
    XCTAssertNil(result(.error, messages: ["target not found"]).environmentFailure)
    XCTAssertNil(result(.failed, messages: ["expected count 1, saw 2"]).environmentFailure)
  }

  func testSystemdRefusingTheExitRecorderAControlGroupIsTheMachine() throws {
    let folder = TemporaryDirectory("environment-failure")
    let launch = folder.path + "/launch-2"
    try FileManager.default.createDirectory(atPath: launch, withIntermediateDirectories: true)
    let journal = launch + "/journal.txt"
    try "mydaemon.service: Control process exited, code=exited, status=219/CGROUP\n".write(
      toFile: journal, atomically: true, encoding: .utf8)
    let failed = result(.failed, messages: ["x"], processes: [process(artifacts: launch, failed: true)])
    XCTAssertEqual(failed.environmentFailure?.hasPrefix("launch 2: systemd could not put"), true)
    // The same journal beside a launch that did not fail says nothing of the failure.
    XCTAssertNil(
      result(.failed, messages: ["x"], processes: [process(artifacts: launch, failed: false)]).environmentFailure)
    try "mydaemon.service: Main process exited, code=killed, status=9/KILL\n".write(
      toFile: journal, atomically: true, encoding: .utf8)
    XCTAssertNil(failed.environmentFailure)
  }
}
