import Foundation
import XCTest

@testable import ChaosKit

/// Judging what happened (issue 31): a launch whose injected failpoint did not fire is
/// predicted as a launch without that fault, and counted as "not reached", never a divergence.
final class JudgementTests: XCTestCase {
  var declared: ExplorationApp {
    var app = ExplorationApp(threshold: 2, levels: [], protectFinishes: true, lifeActions: [])
    app.declared = true
    return app
  }

  func event(_ name: String, _ fields: [String: JSONValue] = [:], line: Int) -> TargetEvent {
    TargetEvent(
      name: name, pid: 1, time: UInt64(line), fields: fields.merging(["event": .string(name)]) { $1 }, line: line)
  }

  func sequence(_ steps: [ExplorationStep]) -> ExplorationSequence {
    ExplorationSequence(seed: 1, app: declared, steps: steps)
  }

  let handlerFault = ExplorationStep(edit: nil, action: .fault(point: "handler.kv", kind: .segv))
  let clean = ExplorationStep(edit: nil, action: .clean)

  func testAFaultWhoseFailpointDidNotFireIsJudgedAsACleanLaunch() throws {
    let judgement = Judgement(sequence([handlerFault, handlerFault, clean]))
    let finished = [event("launch", line: 1), event("launching_finished", line: 2)]
    // Launch 1: the handler was never called; predicted as a clean launch.
    let first = try XCTUnwrap(judgement.judge.expect(1, [finished], [nil]))
    XCTAssertEqual(first.outcome, .finished)
    XCTAssertEqual(judgement.notReached, ["handler.kv"])
    // Launch 2: the same; launch 3 counts nothing (no launch died).
    _ = judgement.judge.expect(2, [finished], [nil])
    let third = try XCTUnwrap(judgement.judge.expect(3, [finished], [nil]))
    XCTAssertEqual(third.count, 0)
    XCTAssertEqual(judgement.notReached, ["handler.kv", "handler.kv"])
    XCTAssertEqual(judgement.sequence.steps.map(\.reached), [false, false, true])
    XCTAssertEqual(judgement.sequence.steps.map(\.action), [handlerFault.action, handlerFault.action, .clean])
    // Still injected in what is written: the scenario runs what ran.
    let written = judgement.sequence.scenario(target: "t", baseApp: nil, path: "s.yaml")
    XCTAssertEqual(written.launches.map(\.failpoints), ["handler.kv=segv", "handler.kv=segv", ""])
    XCTAssertEqual(written.launches.map(\.expect.outcome), [.finished, .finished, .finished])
  }

  /// The loss issue 45 found: the organizer's own points in a generated configuration are not
  /// excused. A life action added after protectFinished() must run at once; a run where its
  /// failpoint never fired (a library that held it) keeps the predicted crash, so it diverges.
  func testALifeFaultTheModelPredictsMustFireInAGeneratedApp() throws {
    let app = ExplorationApp(threshold: 1, levels: [], protectFinishes: true, lifeActions: ["serve"])
    let crash = ExplorationStep(edit: nil, action: .fault(point: "task.ui", kind: .segv))
    let lifeFault = ExplorationStep(edit: nil, action: .fault(point: "life.serve", kind: .abort))
    let judgement = Judgement(ExplorationSequence(seed: 1, app: app, steps: [crash, lifeFault]))
    let crashed = [event("launch", line: 1), event("failpoint", ["name": .string("task.ui")], line: 2)]
    XCTAssertEqual(judgement.judge.expect(1, [crashed], [nil])?.outcome, .crash)
    let heldInstead = [
      event("launch", ["mode": .string("protect")], line: 1), event("relaunch", line: 2),
      event("launching_finished", line: 3),
      event("life_action", ["key": .string("serve"), "mode": .string("held")], line: 4),
    ]
    let second = try XCTUnwrap(judgement.judge.expect(2, [heldInstead], [nil]))
    XCTAssertEqual(second.outcome, .crash, "predicted to run at once, and crash")
    XCTAssertEqual(second.signal, SIGABRT)
    XCTAssertEqual(judgement.notReached, [])
    XCTAssertEqual(judgement.sequence.steps.map(\.reached), [true, true])
    // A declared target's point may sit behind a branch: excused there.
    XCTAssertFalse(ContractModel.mustFire("life.serve", app: declared))
    XCTAssertTrue(ContractModel.mustFire("protect.begin", app: app))
    XCTAssertFalse(ContractModel.mustFire("task.ui", app: app), "a task can be disabled by --app")
  }

  /// A shrink candidate is judged by its own run, not by what the run it came from showed.
  func testEachRunIsJudgedAfresh() {
    let judgement = Judgement(sequence([handlerFault]))
    _ = judgement.judge.expect(1, [[event("launch", line: 1)]], [nil])
    XCTAssertEqual(Judgement(judgement.sequence).sequence.steps[0].reached, true)
  }

  func testAFaultThatFiredDuringTheLaunchKeepsItsPrediction() throws {
    let judgement = Judgement(sequence([handlerFault, clean]))
    let fired = [
      event("launch", line: 1),
      event("failpoint", ["name": .string("handler.kv"), "action": .string("segv")], line: 2),
    ]
    XCTAssertEqual(judgement.judge.expect(1, [fired], [nil])?.outcome, .crash)
    XCTAssertEqual(judgement.judge.expect(2, [[event("launch", line: 1)]], [nil])?.count, 1, "the crash counts")
    XCTAssertEqual(judgement.notReached, [])
  }

  func testAFaultThatFiredAfterLaunchingFinishedIsNotCounted() throws {
    let judgement = Judgement(sequence([handlerFault, clean]))
    let late = [
      event("launch", line: 1), event("launching_finished", line: 2),
      event("failpoint", ["name": .string("handler.kv"), "action": .string("segv")], line: 3),
    ]
    XCTAssertEqual(judgement.judge.expect(1, [late], [nil])?.outcome, .crash)
    XCTAssertTrue(judgement.sequence.steps[0].firedAfterLaunch)
    XCTAssertEqual(
      judgement.judge.expect(2, [[event("launch", line: 1)]], [nil])?.count, 0, "a finished launch is not counted")
  }

  /// A reused pid was generated for the dead launch a fault leaves; when the fault was not
  /// reached there is no dead launch, and the edit is dropped before the launch runs.
  func testAnEditThatNeedsTheUnreachedFaultsDeadLaunchIsDropped() {
    let reused = ExplorationStep(edit: .reusedPid, action: .clean)
    let judgement = Judgement(sequence([handlerFault, reused]))
    XCTAssertNil(judgement.judge.setup(1))
    _ = judgement.judge.expect(1, [[event("launch", line: 1), event("launching_finished", line: 2)]], [nil])
    XCTAssertEqual(judgement.judge.setup(2), [])
    XCTAssertNil(judgement.sequence.steps[1].edit)
    // Reached: the edit stays.
    let reached = Judgement(sequence([handlerFault, reused]))
    _ = reached.judge.expect(1, [[event("failpoint", ["name": .string("handler.kv")], line: 1)]], [nil])
    XCTAssertNil(reached.judge.setup(2))
  }

  /// A stop the organizer could not see (the SIGTERM reached a signal owner made during the
  /// launch before the organizer adopted it, or came after the deadline fired) leaves a hang at
  /// the failpoint, counted; a stop it saw, or adopted in time, is never counted.
  func testAStopTheOrganizerCouldNotSeeIsJudgedAsAHang() throws {
    var app = declared
    app.deadlineSeconds = 1.5
    let stop = ExplorationStep(edit: nil, action: .sigterm(point: "kv.bind"))
    let launch = event("launch", line: 1)
    let held = event("failpoint", ["name": .string("kv.bind")], line: 2)
    let adopted = event("stop_signal", ["during_launch": .bool(true)], line: 3)
    let hang = event("launch_hang", line: 4)
    func nextCount(_ events: [TargetEvent], signalledAt: UInt64?) throws -> Int? {
      let judgement = Judgement(ExplorationSequence(seed: 1, app: app, steps: [stop, clean]))
      _ = judgement.judge.expect(1, [events], [signalledAt])
      return try XCTUnwrap(judgement.judge.expect(2, [[launch]], [nil])).count
    }
    XCTAssertEqual(try nextCount([launch, held, adopted, hang], signalledAt: 3), 1, "adopted after the stop was sent")
    XCTAssertEqual(try nextCount([launch, adopted, held, hang], signalledAt: 3), 0, "adopted before it")
    XCTAssertEqual(try nextCount([launch, held, hang], signalledAt: 5), 1, "the deadline fired first")
    XCTAssertEqual(try nextCount([launch, held, hang], signalledAt: 3), 0, "sent before the deadline fired")
    let recorded = event("stop_requested", line: 5)
    XCTAssertEqual(
      try nextCount([launch, held, adopted, recorded], signalledAt: 3), 0, "the shutdown path recorded it")
  }

  func testDeclaredPhasesStillCount() {
    var app = declared
    app.pointPhases = ["kv.repair": "repair"]
    let step = ExplorationStep(edit: nil, action: .fault(point: "kv.repair", kind: .segv))
    XCTAssertEqual(ContractModel.place(of: "kv.repair", in: step, app: app), .repairStart)
  }

  /// The reference app with a task declared but disabled: its failpoint is listed and never
  /// evaluated. Exploring it finds no divergence and reports the point as not reached.
  func testExploringADeclaredButUnreachedFailpointFindsNoDivergence() throws {
    var options = Explorer.Options(target: ScenarioCase.executable("chaos-target"))
    options.app = .object(["disabled_tasks": .array([.string("analytics")])])
    options.sequences = 8
    options.jobs = 2
    options.outDirectory = NSTemporaryDirectory() + "judgement-\(getpid())"
    let report = try Explorer(options: options).run()
    XCTAssertNil(report.failure, report.failure?.firstDifference ?? "")
    XCTAssertGreaterThan(report.notReached["task.analytics"] ?? 0, 0, "\(report.notReached)")
    XCTAssertTrue(report.neverFired.contains("task.analytics"), "\(report.neverFired)")
    XCTAssertNil(report.coverage["task.analytics"])
  }
}
