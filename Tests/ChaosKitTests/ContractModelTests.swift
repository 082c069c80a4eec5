import Foundation
import XCTest

@testable import ChaosKit

/// The contract model, rule by rule: each test quotes a "What counts" row (LaunchProtection's
/// documentation) or the protection contract it makes executable.
final class ContractModelTests: XCTestCase, ContractModelSteps {
  let threshold2 = ExplorationApp(threshold: 2, levels: [], protectFinishes: true, lifeActions: ["serve"])
  let escalating = ExplorationApp(
    threshold: 1, levels: [("clear-caches", 1), ("reset-config", 2)], protectFinishes: true, lifeActions: ["serve"])

  /// "crash (any signal), SIGKILL, OOM kill, watchdog kill before launchingFinished(): yes, once"
  func testEveryDeathBeforeFinishingCountsOnce() {
    for kind in [FaultKind.segv, .kill, .hang, .fatal, .stackoverflow, .threadSegv] {
      let predictions = run([fault("task.network", kind), clean], threshold2)
      XCTAssertEqual(predictions.map(\.count), [0, 1], "\(kind)")
    }
    // A hang is killed by the harness once its failpoint fired (see below): a SIGKILL, counted.
    XCTAssertEqual(run([fault("task.network", .hang)], threshold2)[0].outcome, .killed)
    XCTAssertEqual(run([fault("task.network", .kill)], threshold2)[0].outcome, .killed)
  }

  /// Explore's throughput (issue 45): a hang nothing but the watchdog would end is killed as
  /// soon as its failpoint fired (`send_signal: SIGKILL after failpoint`), not a second later;
  /// a hang the launch deadline ends keeps its deadline (that is what it checks), and after
  /// the launch (where no deadline applies) it is killed at once too. A daemon keeps the watchdog.
  func testAHangIsKilledOnceSeenUnlessADeadlineEndsIt() throws {
    let hang = fault("task.network", .hang)
    let quick = ExplorationSequence(seed: 1, app: threshold2, steps: [hang, clean])
    let launch = quick.scenario(target: "t", baseApp: nil, path: "s.yaml").launches[0]
    XCTAssertEqual(launch.sendSignal?.signal, SIGKILL)
    XCTAssertEqual(launch.sendSignal?.afterEvent, "failpoint")
    XCTAssertEqual(launch.expect.outcome, .killed)
    XCTAssertEqual(quick.predictions[1].count, 1, "counted like the watchdog's kill")

    var deadline = threshold2
    deadline.deadlineSeconds = 0.3
    let ended = ExplorationSequence(seed: 1, app: deadline, steps: [hang, fault("life.serve", .hang)])
    let launches = ended.scenario(target: "t", baseApp: nil, path: "s.yaml").launches
    XCTAssertNil(launches[0].sendSignal, "the deadline ends it")
    XCTAssertEqual(launches[0].expect.outcome, .crash)
    XCTAssertEqual(launches[0].expect.signal, SIGABRT)
    XCTAssertEqual(launches[1].sendSignal?.signal, SIGKILL, "no deadline after the launch")
    XCTAssertEqual(launches[1].expect.outcome, .killed)

    var daemon = threshold2
    daemon.daemon = true
    XCTAssertFalse(ContractModel.killsHangAtOnce(at: "task.network", app: daemon))
  }

  /// The filters of "What counts" (`ignoreTermination`, `ignoreReboots`, `resetOnNewBinary`)
  /// turned off in generated configurations too (the reference app takes them in CHAOS_APP):
  /// a stop, a reboot or a new binary then changes nothing, and the model predicts so.
  func testGeneratedConfigurationsTurnFiltersOff() throws {
    let generator = SequenceGenerator(declared: ["task.ui", "protect.begin", "life.*"])
    let apps = (0..<300).map { generator.sequence(seed: 3, index: $0).app }
    for (name, off) in [
      ("ignore_termination", apps.filter { !$0.ignoresTermination }),
      ("ignore_reboots", apps.filter { !$0.ignoresReboots }),
      ("reset_on_new_binary", apps.filter { !$0.resetsOnNewBinary }),
    ] {
      XCTAssertGreaterThan(off.count, 20, name)
      guard case .object(let fields) = try XCTUnwrap(off.first).json else { return XCTFail(name) }
      XCTAssertEqual(fields[name], .bool(false), name)
    }
    XCTAssertNil(
      { if case .object(let fields) = threshold2.json { fields["ignore_termination"] } else { nil } }(),
      "defaults are not sent")
    var app = threshold2
    app.ignoresTermination = false
    app.ignoresReboots = false
    app.resetsOnNewBinary = false
    let stop = ExplorationStep(edit: nil, action: .sigterm(point: "task.network"))
    XCTAssertEqual(run([stop, clean], app).map(\.count), [0, 1], "a stop counts")
    let rebooted = run([fault("task.network", .segv), ExplorationStep(edit: .reboot, action: .clean)], app)
    XCTAssertEqual(rebooted.map(\.count), [0, 1], "a reboot hides nothing")
    let newBinary = run(
      [fault("task.network", .segv), fault("task.network", .segv, edit: .newBinary), clean], app)
    XCTAssertEqual(newBinary.map(\.count), [0, 1, 2], "a new binary resets nothing")
  }

  /// A failed first write with a dead launch pending: the decision counts it in memory; a
  /// launch that then finishes resolves it, one that ends unfinished leaves it on disk for the
  /// next launch to count (once, not twice).
  func testAFailedFirstWriteWithADeadLaunchPending() {
    let storage = ExplorationStep(edit: nil, action: .storageError)
    let finishing = run([fault("task.network", .segv), storage, clean], threshold2)
    XCTAssertEqual(finishing.map(\.count), [0, 1, 0])
    XCTAssertEqual(finishing.map(\.stateCount), [0, 0, 0])
    var held = threshold2
    held.protectFinishes = false
    let unfinished = run([fault("task.network", .segv), fault("task.network", .segv), storage, clean], held)
    XCTAssertEqual(unfinished.map(\.count), [0, 1, 2, 2], "the pending launch counted once")
    XCTAssertEqual(unfinished[2].outcome, .exit)
    XCTAssertEqual(unfinished[2].stateCount, 1, "on disk: the state before the failed write")
  }

  /// "exit(n) with n ≠ 0 before launchingFinished(): yes"; "exit(0): no"
  func testExitCodes() {
    XCTAssertEqual(run([fault("task.ui", .exitNonzero), clean], threshold2).map(\.count), [0, 1])
    XCTAssertEqual(run([fault("task.ui", .exitZero), clean], threshold2).map(\.count), [0, 0])
    XCTAssertEqual(run([fault("task.ui", .exitZero)], threshold2)[0].exitCode, 0)
  }

  /// "SIGTERM before launchingFinished() (clean shutdown): no"
  func testSigtermIsNotCounted() {
    let predictions = run(
      [ExplorationStep(edit: nil, action: .sigterm(point: "task.ui")), clean], threshold2)
    XCTAssertEqual(predictions[0].signal, SIGTERM)
    XCTAssertEqual(predictions[1].count, 0)
  }

  /// "the machine rebooted since the unfinished launch: no"; "a new executable: count reset to 0"
  func testRebootAndNewBinary() {
    XCTAssertEqual(
      run([fault("task.ui", .segv), ExplorationStep(edit: .reboot, action: .clean)], threshold2)[1].count, 0)
    XCTAssertEqual(
      run(
        [fault("task.ui", .segv), fault("task.ui", .segv), ExplorationStep(edit: .newBinary, action: .clean)],
        threshold2
      )
      .map(\.count), [0, 1, 0])
    XCTAssertEqual(
      run([fault("task.ui", .segv), ExplorationStep(edit: .reusedPid, action: .clean)], threshold2)[1].count, 1,
      "a dead launch whose pid was reused still counts")
  }

  /// "a crash after launchingFinished(): recorded, never counted"
  func testCrashAfterLaunchIsNotCounted() {
    let predictions = run([fault("life.serve", .segv), clean], threshold2)
    XCTAssertEqual(predictions[0].outcome, .crash)
    XCTAssertEqual(predictions[0].stateCount, 0)
    XCTAssertEqual(predictions[1].count, 0)
  }

  /// "finishLaunching: shouldProtect(count) true → protect mode"; "protectFinished() → run the
  /// held launch in-process"; "launchingFinished() → count 0"
  func testProtectModeAtTheThresholdThenRelaunchResets() {
    let predictions = run([fault("task.ui", .segv), fault("task.ui", .segv), clean, clean], threshold2)
    XCTAssertEqual(predictions.map(\.mode), [.normal, .normal, .protect, .normal])
    XCTAssertEqual(predictions[2].relaunched, true)
    XCTAssertEqual(predictions.map(\.stateCount), [0, 1, 0, 0])
  }

  /// "record 'attempting protect level N' before running it so a crash inside the repair
  /// escalates"; "a crash in protect mode or after protectFinished(): yes, and escalates"
  func testCrashInRepairOrRelaunchEscalates() {
    let inRepair = run([fault("task.ui", .segv), fault("protect.begin", .abort), clean], escalating)
    XCTAssertEqual(inRepair.map(\.level), [nil, 1, 2])
    XCTAssertEqual(inRepair[1].attemptedLevel, 1)
    let inRelaunch = run([fault("task.ui", .segv), fault("task.ui", .segv), clean], escalating)
    XCTAssertEqual(inRelaunch.map(\.level), [nil, 1, 2])
    XCTAssertEqual(inRelaunch[1].relaunched, true)
  }

  /// A repair that never calls protectFinished(): the launch stays held, the process exits 0
  /// before finishing — not counted, and the count stays where it was.
  func testHeldLaunchExitsCleanly() {
    var app = threshold2
    app.protectFinishes = false
    let predictions = run([fault("task.ui", .segv), fault("task.ui", .segv), clean, clean], app)
    XCTAssertEqual(predictions[2].outcome, .exit)
    XCTAssertEqual(predictions[2].relaunched, false)
    XCTAssertEqual(predictions.map(\.count), [0, 1, 2, 2])
  }

  /// "A corrupt, truncated… file is moved aside… and the launch proceeds from count 0"
  func testCorruptStateStartsOver() {
    XCTAssertEqual(
      run([fault("task.ui", .segv), ExplorationStep(edit: .corruptState, action: .clean)], threshold2)[1].count, 0)
  }

  /// The generator is reproducible per (seed, index) and aims only at declared failpoints.
  func testGeneratorIsSeeded() throws {
    let generator = SequenceGenerator(declared: ["task.ui", "protect.begin", "life.*", "store.write"])
    XCTAssertEqual(generator.points, ["protect.begin", "task.ui"])
    XCTAssertEqual(generator.lifePoints, ["life.serve", "life.sync"])
    XCTAssertEqual(generator.sequence(seed: 7, index: 3), generator.sequence(seed: 7, index: 3))
    XCTAssertNotEqual(generator.sequence(seed: 7, index: 3), generator.sequence(seed: 7, index: 4))
  }

  /// Every generated sequence is one the model predicts without timing, and the generator
  /// reaches what the fuller model covers: shared launches (crashing and clean), second-pass
  /// life faults, held life actions.
  func testGeneratedSequencesArePredictableAndReachTheFullerModel() {
    let generator = SequenceGenerator(declared: ["task.ui", "launch.begin", "protect.begin", "life.*"])
    var sharedCrashes = 0
    var sharedClean = 0
    var secondPass = 0
    var held = 0
    for index in 0..<800 {
      let sequence = generator.sequence(seed: 11, index: index)
      XCTAssertTrue(sequence.isPredictable, "sequence \(index)")
      if sequence.app.lifeActionsHeld { held += 1 }
      for step in sequence.steps {
        if step.processes > 1, case .fault = step.action { sharedCrashes += 1 }
        if step.processes > 1, step.action == .clean { sharedClean += 1 }
        if step.skip > 0 { secondPass += 1 }
      }
    }
    XCTAssertGreaterThan(sharedCrashes, 20)
    XCTAssertGreaterThan(sharedClean, 20)
    XCTAssertGreaterThan(secondPass, 20)
    XCTAssertGreaterThan(held, 40)
  }

  /// Processes started at once on one state directory: which sibling counted which is timing,
  /// so only what every order agrees on is predicted — each died process counted exactly once
  /// by the next launch, all-finished leaves count 0.
  func testSharedLaunchesCountEachDeathOnce() {
    let app = ExplorationApp(threshold: 9, levels: [], protectFinishes: true, lifeActions: [])
    let sharedKill = ExplorationStep(edit: nil, action: .fault(point: "launch.begin", kind: .kill), processes: 4)
    let predictions = run([fault("task.ui", .segv), sharedKill, clean], app)
    XCTAssertEqual(predictions[1].outcome, .killed)
    XCTAssertNil(predictions[1].count, "a sibling may or may not have counted another")
    XCTAssertNil(predictions[1].stateCount)
    XCTAssertEqual(predictions[1].mode, .normal)
    XCTAssertEqual(predictions[2].count, 5, "the earlier crash and the four siblings, each once")

    let sharedClean = ExplorationStep(edit: nil, action: .clean, processes: 3)
    let finishing = run([fault("task.ui", .segv), sharedClean, clean], app)
    XCTAssertEqual(finishing[1].stateCount, 0)
    XCTAssertEqual(finishing[2].count, 0)
  }

  /// What depends on timing is not admitted: a shared crash that could reach protect mode, a
  /// reboot or a failed write right after a shared crash (on disk, some siblings may be counted).
  func testTimingDependentStepsAreNotAdmitted() {
    var model = ContractModel()
    let threshold3 = ExplorationApp(threshold: 3, levels: [], protectFinishes: true, lifeActions: [])
    let sharedSegv = ExplorationStep(edit: nil, action: .fault(point: "task.ui", kind: .segv), processes: 3)
    XCTAssertTrue(model.admits(sharedSegv, app: threshold3), "counts 0, 1, 2: all normal")
    XCTAssertFalse(
      model.admits(
        ExplorationStep(edit: nil, action: .fault(point: "task.ui", kind: .segv), processes: 4), app: threshold3),
      "the fourth could count three siblings and protect")
    XCTAssertFalse(
      model.admits(
        ExplorationStep(edit: nil, action: .fault(point: "task.ui", kind: .hang), processes: 2), app: threshold3))
    XCTAssertFalse(
      model.admits(
        ExplorationStep(edit: nil, action: .fault(point: "protect.begin", kind: .segv), processes: 2), app: threshold3))
    _ = model.step(sharedSegv, app: threshold3)
    XCTAssertFalse(model.admits(ExplorationStep(edit: .reboot, action: .clean), app: threshold3))
    XCTAssertFalse(model.admits(ExplorationStep(edit: nil, action: .storageError), app: threshold3))
    XCTAssertTrue(model.admits(ExplorationStep(edit: .reusedPid, action: .clean), app: threshold3))
  }
}
