import Foundation
import XCTest

@testable import ChaosKit

/// The contract model once every level failed ("What counts", Exhausted levels): staying
/// degraded, and the generator reaching it.
final class ContractModelExhaustedTests: XCTestCase, ContractModelSteps {
  /// "Exhausted levels" under the default policy (the last level repeats): the launch that
  /// protects once every level was attempted says so (`protect_exhausted`), one with a level
  /// left does not. What a threshold policy's app shows, kvd included (issue 55).
  func testTheLastLevelRepeatingIsAnnouncedAsExhausted() {
    let app = ExplorationApp(threshold: 2, levels: [], protectFinishes: true, lifeActions: [])
    let repair = fault("protect.begin", .segv)
    let predictions = run([fault("task.ui", .segv), fault("task.ui", .segv), repair, clean], app)
    XCTAssertEqual(predictions.map(\.exhausted), [false, false, false, true])
    let sequence = ExplorationSequence(
      seed: 1, app: app, steps: [fault("task.ui", .segv), fault("task.ui", .segv), repair, clean])
    let launches = sequence.scenario(target: "chaos-target", baseApp: nil, path: "/tmp/x.yaml").launches
    XCTAssertEqual(launches[2].expect.noEvents.map(\.name), ["protect_exhausted"], "level 1 not yet attempted")
    XCTAssertEqual(launches[3].expect.events.last?.name, "protect_exhausted")
    XCTAssertEqual(launches[3].expect.events.last?.times, 1)
  }

  /// "`.stayDegraded`: the repair runs with `context.exhausted`, no deadline, `protectFinished()`
  /// is refused": the launch after the last level died exits 0 without relaunching, which is
  /// not counted; the launch after it repairs at the level its count gives and relaunches.
  func testStayingDegradedIsAHeldLaunchThatIsNotCounted() throws {
    var app = ExplorationApp(threshold: 1, levels: [], protectFinishes: true, lifeActions: ["serve"])
    app.staysDegraded = true
    let predictions = run([fault("task.ui", .segv), fault("task.ui", .segv), clean, clean, clean], app)
    XCTAssertEqual(predictions[1].mode, .protect)
    XCTAssertEqual(predictions[1].relaunched, true)
    XCTAssertFalse(predictions[1].degraded, "level 1 was not yet attempted")
    let degraded = predictions[2]
    XCTAssertTrue(degraded.degraded)
    XCTAssertEqual(degraded.outcome, .exit)
    XCTAssertEqual(degraded.exitCode, 0)
    XCTAssertEqual(degraded.count, 2)
    XCTAssertEqual(degraded.level, 1)
    XCTAssertEqual(degraded.relaunched, false)
    XCTAssertEqual(degraded.stateCount, 2, "its clean exit is not counted")
    XCTAssertEqual(predictions[3].count, 2)
    XCTAssertFalse(predictions[3].degraded, "nothing counted since: level 1 again, relaunched")
    XCTAssertEqual(predictions[3].relaunched, true)
    XCTAssertEqual(predictions[4].count, 0)
    XCTAssertEqual(predictions[4].mode, .normal)

    // Its scenario checks the exhausted event and that nothing was relaunched or finished.
    let sequence = ExplorationSequence(
      seed: 1, app: app, steps: [fault("task.ui", .segv), fault("task.ui", .segv), clean])
    let expect = sequence.scenario(target: "t", baseApp: nil, path: "s.yaml").launches[2].expect
    XCTAssertEqual(expect.events.map(\.name), ["protect_exhausted"])
    XCTAssertEqual(expect.events.first?.fields["action"], .string("stay-degraded"))
    XCTAssertEqual(expect.noEvents.map(\.name), ["relaunch", "launching_finished"])
    XCTAssertEqual(expect.exitCode, 0)
  }

  /// A degraded launch has no deadline: a hang in its repair is not ended by SIGABRT (the
  /// watchdog ends it, counted); before the levels ran out the deadline does end it. The repair's
  /// failpoints still fire, `protect.finish` too (evaluated before `protectFinished()` refuses).
  func testADegradedLaunchHasNoDeadlineAndItsRepairStillRuns() {
    var app = ExplorationApp(threshold: 1, levels: [], protectFinishes: true, lifeActions: ["serve"])
    app.staysDegraded = true
    app.deadlineSeconds = 0.3
    let hangs = run([fault("task.ui", .segv), fault("task.ui", .segv), fault("protect.begin", .hang)], app)
    XCTAssertTrue(hangs[2].mode == .protect && hangs[2].outcome == .timeout, "\(hangs[2])")
    let beforeExhausted = run([fault("task.ui", .segv), fault("protect.begin", .hang)], app)
    XCTAssertEqual(beforeExhausted[1].outcome, .crash)
    XCTAssertEqual(beforeExhausted[1].signal, SIGABRT, "the deadline ends a repair while levels remain")
    let finish = run(
      [fault("task.ui", .segv), fault("task.ui", .segv), fault("protect.finish", .abort), clean], app)
    XCTAssertEqual(finish[2].outcome, .crash)
    XCTAssertEqual(finish[2].fired, "protect.finish")
    XCTAssertEqual(finish[3].count, 3, "a crash in a degraded repair counts")
  }

  /// The generator reaches degraded launches, predictably (no launch of several processes
  /// that one of them could make degraded: which one is timing).
  func testTheGeneratorReachesDegradedLaunches() {
    let generator = SequenceGenerator(declared: ["task.ui", "launch.begin", "protect.begin", "life.*"])
    var degraded = 0
    for index in 0..<400 {
      let sequence = generator.sequence(seed: 1, index: index)
      XCTAssertTrue(sequence.isPredictable, "sequence \(index)")
      degraded += sequence.predictions.filter(\.degraded).count
    }
    XCTAssertGreaterThan(degraded, 20, "degraded launches")
  }
}
