import Foundation
import XCTest

@testable import ChaosKit

/// The state after each launch, beyond the count (issue 55): what a launch's decision must have
/// resolved (the records the last launch left), what a launch must have cleared (its own record
/// once finished or exited cleanly) and what it must have kept (its record when it died, for
/// the next launch), and why the last launch not counted was not (`lastUncountedExit`).
final class ContractModelStateTests: XCTestCase, ContractModelSteps {
  let app = ExplorationApp(threshold: 2, levels: [], protectFinishes: true, lifeActions: ["serve"])

  /// "a launch that died before finishing leaves its sentinel"; "launchingFinished() → sentinel cleared".
  func testADeathKeepsItsRecordAndTheNextLaunchResolvesIt() {
    let predictions = run([fault("task.ui", .segv), clean, fault("task.ui", .kill), fault("task.ui", .exitZero)], app)
    XCTAssertEqual(predictions.map(\.launchesInProgress), [1, 0, 1, 0])
    XCTAssertEqual(predictions.map(\.lastUncountedExit), [nil, nil, nil, "cleanExit"], "exit(0) is recorded as such")
  }

  /// "the machine rebooted since the unfinished launch: no" — and its record is resolved, not
  /// kept: a launch after the reboot that dies leaves its own record only.
  func testARebootedLaunchIsResolvedNotKept() {
    let rebootedThenCrash = ExplorationStep(edit: .reboot, action: .fault(point: "task.ui", kind: .segv))
    let predictions = run([fault("task.ui", .segv), rebootedThenCrash, clean], app)
    XCTAssertEqual(predictions[1].count, 0)
    XCTAssertEqual(predictions[1].launchesInProgress, 1, "its own record, not the rebooted one too")
    XCTAssertEqual(predictions[1].lastUncountedExit, "reboot")
    XCTAssertEqual(predictions[2].count, 1)
    var counting = app
    counting.ignoresReboots = false
    let counted = run([fault("task.ui", .segv), rebootedThenCrash], counting)
    XCTAssertEqual(counted[1].count, 1)
    XCTAssertNil(counted[1].lastUncountedExit, "counted, so no reason recorded")
  }

  /// "a stop before launchingFinished() is not counted": its record stays until the next
  /// launch resolves it as `terminated`; with the filter off it is counted instead.
  func testAStoppedLaunchIsResolvedAsTerminated() {
    let stop = ExplorationStep(edit: nil, action: .sigterm(point: "task.ui"))
    let predictions = run([stop, fault("task.ui", .segv)], app)
    XCTAssertEqual(predictions.map(\.launchesInProgress), [1, 1])
    XCTAssertEqual(predictions.map(\.lastUncountedExit), [nil, "terminated"])
    var counting = app
    counting.ignoresTermination = false
    XCTAssertEqual(run([stop, clean], counting).map(\.lastUncountedExit), [nil, nil])
  }

  /// A held launch that exits 0 (a repair that never finishes) removes its record: a clean exit.
  func testAHeldLaunchExitingCleanlyClearsItsRecord() {
    var never = app
    never.threshold = 1
    never.protectFinishes = false
    let predictions = run([fault("task.ui", .segv), clean], never)
    XCTAssertEqual(predictions[1].outcome, .exit)
    XCTAssertEqual(predictions[1].launchesInProgress, 0)
    XCTAssertEqual(predictions[1].lastUncountedExit, "cleanExit")
  }

  /// "a failed first write leaves what was on disk": the dead launch's record too, and the reason
  /// a finished launch's decision found is not written (its end is, without it).
  func testAFailedFirstWriteLeavesTheRecordsOnDisk() {
    let failedWrite = ExplorationStep(edit: nil, action: .storageError)
    XCTAssertEqual(run([fault("task.ui", .segv), failedWrite], app)[1].launchesInProgress, 0, "finished: resolved")
    let stop = ExplorationStep(edit: nil, action: .sigterm(point: "task.ui"))
    let afterStop = run([stop, failedWrite], app)
    XCTAssertEqual(afterStop[1].launchesInProgress, 0)
    XCTAssertNil(afterStop[1].lastUncountedExit, "the decision's `terminated` was never written")
  }

  /// Processes started at once that all crash: which sibling counted which is timing, so the
  /// records left are not predicted; the next launch resolves every one.
  func testSharedCrashesLeaveUnpredictedRecords() {
    let shared = ExplorationStep(edit: nil, action: .fault(point: "task.ui", kind: .segv), processes: 3)
    var high = app
    high.threshold = 9
    let predictions = run([shared, clean], high)
    XCTAssertNil(predictions[0].launchesInProgress)
    XCTAssertEqual(predictions[1].launchesInProgress, 0)
    XCTAssertEqual(predictions[1].count, 3)
  }

  /// A declared app's end after a stop is its own (it may exit 0): neither its records nor the
  /// next reason is predicted, until a launch records one of its own.
  func testADeclaredAppsStopIsNotPredicted() {
    var declared = app
    declared.declared = true
    let stop = ExplorationStep(edit: nil, action: .sigterm(point: "task.ui"))
    let predictions = run([stop, clean, fault("task.ui", .exitZero)], declared)
    XCTAssertNil(predictions[0].launchesInProgress)
    XCTAssertNil(predictions[1].lastUncountedExit)
    XCTAssertEqual(predictions[1].launchesInProgress, 0)
    XCTAssertEqual(predictions[2].lastUncountedExit, "cleanExit")
  }

  /// The written scenario states what the model predicts about the state.
  func testTheScenarioExpectsTheState() throws {
    let sequence = ExplorationSequence(
      seed: 1, app: app,
      steps: [fault("task.ui", .segv), ExplorationStep(edit: .reboot, action: .fault(point: "task.ui", kind: .abort))])
    let scenario = sequence.scenario(target: "chaos-target", baseApp: nil, path: "/tmp/x.yaml")
    let state = try XCTUnwrap(scenario.launches[1].expect.state)
    XCTAssertEqual(state.launchesInProgress, 1)
    XCTAssertEqual(state.lastUncountedExit, "reboot")
    let text = ScenarioWriter.yaml(scenario, comments: [])
    XCTAssertTrue(text.contains("launches_in_progress: 1, last_uncounted_exit: reboot"), text)
  }

  /// The generated app's second calls: each finds nothing, each action's runs are counted
  /// exactly ("an action runs at most once"), and a held key is performed once.
  func testSecondCallsAreExpectedAndCounted() throws {
    var held = app
    held.threshold = 1
    held.lifeActionsHeld = true
    held.lifeActions = ["serve", "serve"]
    let prediction = run([fault("task.ui", .segv), clean], held)[1]
    let life = try XCTUnwrap(ContractModel.lifeActionEvents(prediction, app: held))
    let calls = life.events.filter { $0.name == "second_call" }
    XCTAssertEqual(
      calls.compactMap { $0.fields["call"]?.string }, ["protect_finished", "launching_finished", "perform_action"])
    XCTAssertTrue(calls.allSatisfy { $0.fields["result"] == nil || $0.fields["result"] == .bool(false) })
    let counted = Dictionary(
      life.events.filter { $0.times != nil }.map { ($0.name + ($0.fields["mode"]?.string ?? ""), $0.times!) },
      uniquingKeysWith: +)
    XCTAssertEqual(counted["life_action_run"], 1, "performed once")
    XCTAssertEqual(counted["life_actionperformed"], 1)
    XCTAssertEqual(counted["life_action_protect_run"], 2, "each add runs its protect action")
    XCTAssertEqual(counted["launching_finished"], 1, "launchingFinished() again changes nothing")

    // After protectFinished() (immediate): the repair's own second call, and each add ran at once.
    var immediate = held
    immediate.lifeActionsHeld = false
    let relaunched = run([fault("task.ui", .segv), clean], immediate)[1]
    let ran = try XCTUnwrap(ContractModel.lifeActionEvents(relaunched, app: immediate))
    XCTAssertEqual(ran.events[1].fields["when"], .string("repair"))
    XCTAssertEqual(ran.events.first { $0.name == "life_action_run" }?.times, 2)
    guard case .object(let fields) = immediate.json else { return XCTFail("an object") }
    XCTAssertEqual(fields["second_calls"], .bool(true))
  }
}
