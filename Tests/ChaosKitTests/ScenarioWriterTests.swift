import Foundation
import XCTest

@testable import ChaosKit

/// What `chaos explore` writes is what it ran: every generated sequence, written as YAML and
/// loaded back, has the same launches, expectations and daemon stop.
final class ScenarioWriterTests: XCTestCase {
  func roundTrip(_ scenario: Scenario) throws -> Scenario {
    try ScenarioLoader.parse(ScenarioWriter.yaml(scenario, comments: ["a comment"]), path: "written.yaml")
  }

  func assertSameLaunches(_ written: Scenario, _ loaded: Scenario, _ label: String) {
    XCTAssertEqual(loaded.daemon, written.daemon, label)
    XCTAssertEqual(loaded.app, written.app, label)
    XCTAssertEqual(loaded.environment, written.environment, label)
    XCTAssertEqual(loaded.launches.count, written.launches.count, label)
    for (index, (a, b)) in zip(written.launches, loaded.launches).enumerated() {
      let place = "\(label), launch \(index + 1)"
      XCTAssertEqual(b.failpoints, a.failpoints, place)
      XCTAssertEqual(b.parallel, a.parallel, place)
      XCTAssertEqual(b.repeatCount, a.repeatCount, place)
      XCTAssertEqual(b.expect.noEvents, a.expect.noEvents, place)
      XCTAssertEqual(b.timeoutSeconds, a.timeoutSeconds, place)
      XCTAssertEqual(b.before, a.before, place)
      XCTAssertEqual(b.sendSignal, a.sendSignal, place)
      XCTAssertEqual(b.expect.outcome, a.expect.outcome, place)
      XCTAssertEqual(b.expect.signal, a.expect.signal, place)
      XCTAssertEqual(b.expect.exitCode, a.expect.exitCode, place)
      XCTAssertEqual(b.expect.count, a.expect.count, place)
      XCTAssertEqual(b.expect.mode, a.expect.mode, place)
      XCTAssertEqual(b.expect.level, a.expect.level, place)
      XCTAssertEqual(b.expect.relaunched, a.expect.relaunched, place)
      XCTAssertEqual(b.expect.events, a.expect.events, place)
      XCTAssertEqual(b.expect.state?.count, a.expect.state?.count, place)
      XCTAssertEqual(b.expect.state?.attemptedLevel, a.expect.state?.attemptedLevel, place)
      XCTAssertEqual(b.requests.map(\.action), a.requests.map(\.action), place)
      XCTAssertEqual(b.requests.map(\.afterEvent), a.requests.map(\.afterEvent), place)
      XCTAssertEqual(b.requests.map(\.optional), a.requests.map(\.optional), place)
    }
  }

  /// Issue 45: a divergence reproduced in 2 of 3 re-runs is written repeated so that it fails
  /// reliably; the file says `repeat: 11` on the divergent launch and loads back as written.
  func testAnIntermittentBugIsWrittenWithRepeat() throws {
    let app = ExplorationApp(threshold: 2, levels: [], protectFinishes: true, lifeActions: ["serve"])
    let clean = ExplorationStep(edit: nil, action: .clean)
    let crash = ExplorationStep(edit: nil, action: .fault(point: "task.ui", kind: .segv))
    let verdict = Verdict(reproduced: 2, reruns: 3)
    XCTAssertTrue(verdict.isBug)
    XCTAssertEqual(verdict.exitStatus(strictFlaky: false), 1)
    let sequence = ExplorationSequence(seed: 1, app: app, steps: [crash, clean, clean])
    let repeated = try XCTUnwrap(sequence.repeated(divergent: 3, rounds: verdict.rounds()))
    let written = repeated.scenario(target: "chaos-target", baseApp: nil, path: "s.yaml")
    let text = ScenarioWriter.yaml(written, comments: ["An intermittent bug, \(verdict.summary) re-runs"])
    XCTAssertTrue(text.contains("repeat: 11"), text)
    XCTAssertTrue(text.contains("reproduced in 2 of 3"), text)
    let loaded = try roundTrip(written)
    XCTAssertEqual(loaded.launches.map(\.repeatCount), [1, 1, 11])
    assertSameLaunches(written, loaded, "repeated")
  }

  func testGeneratedSequencesSurviveTheRoundTrip() throws {
    let generator = SequenceGenerator(declared: ["task.ui", "launch.begin", "protect.begin", "life.*", "store.write"])
    var shared = 0
    for index in 0..<150 {
      let sequence = generator.sequence(seed: 3, index: index)
      shared += sequence.steps.filter { $0.processes > 1 }.count
      let written = sequence.scenario(target: "chaos-target", baseApp: nil, path: "s.yaml")
      assertSameLaunches(written, try roundTrip(written), "sequence \(index)")
    }
    XCTAssertGreaterThan(shared, 0, "shared launches were written")
  }

  func testADeclaredDaemonIsWrittenWithItsStop() throws {
    var app = ExplorationApp(threshold: 1, levels: [("quarantine", 2)], protectFinishes: true, lifeActions: [])
    app.declared = true
    app.daemon = true
    let generator = SequenceGenerator(declared: ["kv.load", "protect.begin"], declaredApp: app)
    let sequence = generator.sequence(seed: 5, index: 0)
    let written = sequence.scenario(
      target: "kvd", baseApp: nil, environment: ["KVD_DATA_DIR": "${CHAOS_STATE_DIR}/data"], path: "s.yaml")
    XCTAssertEqual(written.daemon, DaemonSpec())
    XCTAssertTrue(ScenarioWriter.yaml(written, comments: []).contains("\ndaemon: true\n"))
    assertSameLaunches(written, try roundTrip(written), "daemon")
    var custom = written
    custom.daemon = DaemonSpec(stopAfter: 0.25, stopTimeout: 2)
    XCTAssertEqual(try roundTrip(custom).daemon, DaemonSpec(stopAfter: 0.25, stopTimeout: 2))
  }

  /// `--workload`: the requests every daemon launch makes are written into the scenario (as
  /// optional steps), so the shrunk repro reaches the same request-time failpoints.
  func testAWorkloadIsWrittenIntoTheScenario() throws {
    let folder = NSTemporaryDirectory() + "workload-\(getpid())"
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: folder) }
    try """
    requests:
      - http: { method: PUT, path: /kv/a, body: "x y", headers: { X-Token: t }, status: 204, retry_for: 2s }
      - command: [sh, -c, "echo 'quoted' \\"twice\\""]
        output_contains: twice
        after_event: listening
    """.write(toFile: folder + "/workload.yaml", atomically: true, encoding: .utf8)
    let workload = try WorkloadLoader.load(path: folder + "/workload.yaml")
    XCTAssertEqual(workload.count, 2)
    var app = ExplorationApp(threshold: 2, levels: [], protectFinishes: true, lifeActions: [])
    app.declared = true
    app.daemon = true
    var options = Explorer.Options(target: "/bin/true")
    options.workload = workload
    let sequence = SequenceGenerator(declared: ["handler.kv"], declaredApp: app).sequence(seed: 2, index: 0)
    let written = Explorer(options: options).scenario(sequence, name: "w")
    let loaded = try roundTrip(written)
    XCTAssertTrue(loaded.launches.contains { !$0.requests.isEmpty })
    for launch in loaded.launches where launch.sendSignal == nil {
      XCTAssertEqual(launch.requests.map(\.action), workload.map(\.action))
      XCTAssertTrue(launch.requests.allSatisfy(\.optional), "a fault may end the server mid-request")
    }
    assertSameLaunches(written, loaded, "workload")
    XCTAssertThrowsError(try WorkloadLoader.load(path: folder + "/missing.yaml"))
  }
}
