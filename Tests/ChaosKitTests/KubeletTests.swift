import ChaosKit
import Foundation
import TestSupport
import XCTest

@testable import ChaosKit

/// `kubernetes:`: the loader, CrashLoopBackOff's arithmetic, the restart policy, and what a
/// scenario whose pod spec is wrong is told.
final class KubeletTests: XCTestCase {
  func testTheLoaderReadsThePodSpecWithKubernetesDefaults() throws {
    let scenario = try ScenarioLoader.parse(
      """
      name: k
      kubernetes:
        restart_policy: OnFailure
        time_scale: 0.01
        startup_probe: { http: { path: /health }, period: 5s, failure_threshold: 12 }
        readiness_probe: { command: [test, -f, ready], success_threshold: 2 }
      launches:
        - expect: { probes: { startup: passed, readiness: not_ready }, restart_delay: 100ms }
      """, path: "s.yaml")
    let kubelet = try XCTUnwrap(scenario.kubelet)
    XCTAssertEqual(kubelet.restartPolicy, .onFailure)
    XCTAssertEqual([kubelet.backoffInitial, kubelet.backoffCap, kubelet.backoffReset], [10, 300, 600])
    XCTAssertEqual(kubelet.terminationGracePeriod, 30)
    XCTAssertEqual(kubelet.startupProbe?.action, .http(path: "/health", port: nil))
    XCTAssertEqual(kubelet.startupProbe?.budget, 55, "attempts at 0, 5, … 55 s: the twelfth failure kills")
    XCTAssertEqual(kubelet.readinessProbe?.action, .command(["test", "-f", "ready"]))
    XCTAssertEqual(kubelet.readinessProbe?.successThreshold, 2)
    XCTAssertNil(kubelet.livenessProbe)
    let expect = scenario.launches[0].expect
    XCTAssertEqual(expect.probes, ProbeExpectation(startup: true, liveness: nil, readiness: false))
    XCTAssertEqual(expect.restartDelay, 0.1)
  }

  func testBadPodSpecsAreErrorsWithTheirPlace() {
    func assertError(_ yaml: String, line: Int, _ message: String, file: StaticString = #filePath, at: UInt = #line) {
      XCTAssertThrowsError(try ScenarioLoader.parse(yaml, path: "s.yaml"), file: file, line: at) { error in
        guard let error = error as? ScenarioError else { return XCTFail("\(error)", file: file, line: at) }
        XCTAssertEqual(error.line, line, "\(error)", file: file, line: at)
        XCTAssertTrue(error.message.contains(message), error.message, file: file, line: at)
      }
    }
    let launch = "launches:\n  - expect: {}\n"
    assertError(
      "name: k\nkubernetes: { restart_policy: Sometimes }\n" + launch, line: 2, "unknown restart_policy 'Sometimes'")
    assertError("name: k\nkubernetes: { time_scale: 2 }\n" + launch, line: 2, "at most 1")
    assertError(
      "name: k\nkubernetes: { startup_probe: { period: 1s } }\n" + launch, line: 2, "exactly one of 'http' or 'command'"
    )
    assertError(
      "name: k\nkubernetes: { liveness_probe: { command: [true], success_threshold: 2 } }\n" + launch, line: 2,
      "must be 1 for liveness_probe")
    assertError("name: k\nsupervisor: { notify: true }\nkubernetes: {}\n" + launch, line: 2, "cannot both")
    assertError(
      "name: k\nkubernetes: { restart_policy: Never }\nlaunches:\n  - expect: {}\n  - expect: {}\n", line: 5,
      "never restarts")
    assertError(
      "name: k\n" + "launches:\n  - expect: { probes: { startup: maybe } }\n", line: 3,
      "'startup' must be passed or failed")
  }

  func testCrashLoopBackOffDoublesFromTenSecondsToFiveMinutes() {
    let spec = KubeletSpec()
    XCTAssertEqual((1...7).map(spec.backoff(beforeRestart:)), [10, 20, 40, 80, 160, 300, 300])
    var scaled = KubeletSpec()
    scaled.timeScale = 0.01
    XCTAssertEqual(scaled.backoff(beforeRestart: 3), 0.4, accuracy: 1e-9)
  }

  func testTheRestartPolicyAndTheResetAfterAHealthyRun() {
    func ended(_ end: ProcessEnd, after seconds: Double) -> ProcessResult {
      ProcessResult(
        launch: 1, line: 1, iteration: 1, process: 1, pid: 1, end: end, outcome: nil, relaunched: false,
        durationMilliseconds: seconds * 1000, artifacts: "", failures: [])
    }
    var spec = KubeletSpec()
    spec.timeScale = 0.01
    var restarts = KubeletRestarts()
    XCTAssertEqual(
      restarts.next(after: ended(.signaled(SIGSEGV), after: 0.1), spec: spec), .restart(number: 1, delay: 0.1))
    XCTAssertEqual(restarts.next(after: ended(.exited(0), after: 0.1), spec: spec), .restart(number: 2, delay: 0.2))
    // Ran 6 s (10 minutes scaled): the back-off starts over.
    XCTAssertEqual(restarts.next(after: ended(.exited(1), after: 6), spec: spec), .restart(number: 3, delay: 0.1))
    spec.restartPolicy = .onFailure
    XCTAssertEqual(restarts.next(after: ended(.exited(3), after: 0.1), spec: spec), .restart(number: 4, delay: 0.2))
    guard case .none(let why) = restarts.next(after: ended(.exited(0), after: 0.1), spec: spec) else {
      return XCTFail("OnFailure restarted a clean exit")
    }
    XCTAssertTrue(why.contains("exited 0"), why)
  }

  /// A repair slower than a too-short startup probe: a scenario that expects the probe to pass
  /// fails with a message naming the probe, its budget and why.
  func testAStartupProbeShorterThanTheRepairFailsNamingTheProbeAndItsBudget() throws {
    let folder = TemporaryDirectory("kubelet")
    let path = folder.file("s.yaml")
    try """
    name: too short
    timeout: 10s
    kubernetes:
      time_scale: 0.1
      termination_grace_period: 1s
      startup_probe: { command: [sh, -c, 'grep -q launching_finished "$CHAOS_EVENTS"'], period: 1s, failure_threshold: 3 }
    app: { threshold: 1, repair_ms: 1000 }
    launches:
      - failpoints: "task.network=segv"
        expect: { outcome: crash }
      - expect: { outcome: finished, mode: protect, probes: { startup: passed } }
    """.write(toFile: path, atomically: true, encoding: .utf8)
    var options = RunOptions()
    options.referenceTarget = ChildProcess.product("chaos-target")
    options.artifactsDirectory = folder.file("artifacts")
    let result = ScenarioRunner(options: options).run(try ScenarioLoader.load(path: path))
    XCTAssertEqual(result.status, .failed)
    let message = result.messages.joined(separator: "\n")
    for needle in [
      "launch 2 (line 11", "expected probes.startup passed, saw failed", "the startup probe (failure_threshold 3,",
      "period 100 ms: a 200 ms budget", "in protect mode: its repair outlived the probe's budget",
    ] {
      XCTAssertTrue(message.contains(needle), "missing '\(needle)' in:\n\(message)")
    }
  }
}
