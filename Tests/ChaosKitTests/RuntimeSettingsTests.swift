import ChaosKit
import Foundation
import XCTest

/// The OCI runtime keys of the scenario format: `runtime`, `memory`, `pids`, `init` at the top
/// and per launch, `runtime` and `resources.limits` in `kubernetes`.
final class RuntimeSettingsTests: XCTestCase {
  func assertError(
    _ yaml: String, line: Int, _ message: String, file: StaticString = #filePath, at: UInt = #line
  ) {
    XCTAssertThrowsError(try ScenarioLoader.parse(yaml, path: "s.yaml"), file: file, line: at) { error in
      guard let error = error as? ScenarioError else { return XCTFail("\(error)", file: file, line: at) }
      XCTAssertEqual(error.line, line, "\(error)", file: file, line: at)
      XCTAssertTrue(error.message.contains(message), "\(error.message) lacks \(message)", file: file, line: at)
    }
  }

  func testTopLevelKeysAndALaunchOverride() throws {
    let scenario = try ScenarioLoader.parse(
      """
      name: r
      runtime: runc
      memory: 64Mi
      pids: 100
      launches:
        - expect: {}
        - init: tini
          memory: 1Gi
          expect: {}
      """, path: "s.yaml")
    XCTAssertEqual(scenario.runtime.runtime, .runc)
    XCTAssertEqual(scenario.runtime.memoryBytes, 64 << 20)
    XCTAssertEqual(scenario.runtime.pids, 100)
    XCTAssertEqual(scenario.runtime.line, 2)
    let second = scenario.launches[1].runtime.over(scenario.runtime)
    XCTAssertEqual(second.runtime, .runc)
    XCTAssertEqual(second.memoryBytes, 1 << 30)
    XCTAssertEqual(second.initProcess, .tini)
    XCTAssertNil(scenario.launches[0].runtime.over(scenario.runtime).initProcess)
  }

  func testKubernetesRuntimeAndLimits() throws {
    let scenario = try ScenarioLoader.parse(
      """
      name: k
      kubernetes:
        runtime: runc
        resources: { limits: { memory: 256M, pids: 64 } }
      launches:
        - expect: {}
      """, path: "s.yaml")
    XCTAssertEqual(scenario.runtime.runtime, .runc)
    XCTAssertEqual(scenario.runtime.memoryBytes, 256_000_000)
    XCTAssertEqual(scenario.runtime.pids, 64)
    XCTAssertNotNil(scenario.kubelet)
  }

  func testMistakesNameTheirLine() {
    assertError(
      "name: r\nruntime: docker\nlaunches:\n  - expect: {}\n", line: 2, "unknown runtime 'docker' (known: runc)")
    assertError(
      "name: r\nruntime: runc\nmemory: lots\nlaunches:\n  - expect: {}\n", line: 3,
      "'memory' must be a quantity like 64Mi")
    assertError(
      "name: r\nruntime: runc\nmemory: 1Mi\nlaunches:\n  - expect: {}\n", line: 3, "must be at least 4Mi")
    assertError(
      "name: r\nruntime: runc\ninit: systemd\nlaunches:\n  - expect: {}\n", line: 3,
      "unknown init 'systemd' (known: tini, dumb-init)")
    // Limits without a runtime would pass a scenario that never ran under them.
    assertError(
      "name: r\nlaunches:\n  - expect: {}\n  - memory: 64Mi\n    expect: {}\n", line: 4,
      "need 'runtime: runc'")
    assertError(
      "name: r\nkubernetes:\n  resources: { limits: { memory: 64Mi } }\nlaunches:\n  - expect: {}\n", line: 3,
      "need 'runtime: runc'")
  }

  func testOOMKilledIsAnOutcome() throws {
    let scenario = try ScenarioLoader.parse(
      "name: o\nruntime: runc\nmemory: 64Mi\nlaunches:\n  - failpoints: task.a=oom\n    expect: { outcome: oom_killed, exit_code: 137 }\n",
      path: "s.yaml")
    XCTAssertEqual(scenario.launches[0].expect.outcome, .oomKilled)
  }

  /// `Outcome` is a struct that can grow; its spellings are those of 0.2.0's enum, in JSON too.
  func testOutcomesKeepTheirSpellings() throws {
    XCTAssertEqual(Outcome.allCases.map(\.rawValue), ["finished", "crash", "killed", "exit", "timeout", "oom_killed"])
    XCTAssertEqual(Outcome(rawValue: "oom_killed"), .oomKilled)
    XCTAssertNil(Outcome(rawValue: "oomKilled"), "only the scenario spelling")
    XCTAssertEqual(
      String(decoding: try JSONEncoder().encode([Outcome.crash, .oomKilled]), as: UTF8.self), #"["crash","oom_killed"]"#
    )
    XCTAssertEqual("\(Outcome.timeout)", "timeout")
  }
}
