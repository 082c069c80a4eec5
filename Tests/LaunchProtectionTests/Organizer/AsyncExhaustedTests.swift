import Foundation
import LaunchProtection
import Synchronization
import TestSupport
import XCTest

/// The async API's error and exhausted paths, through `launch(policy:repair:)`: a repair that
/// throws, and a ladder whose last level was attempted, under each `whenExhausted` action.
final class AsyncExhaustedTests: XCTestCase {
  private struct RepairFailed: Error, Equatable {}

  private let levels = ProtectionPolicy.escalation([("clear-caches", 1), ("reset-config", 2)])
  private var lastLevel: ProtectLevel { levels.levels[1] }

  /// One async launch that dies (is abandoned) after its repair, if any; returns the context
  /// the repair saw (nil in normal mode).
  @discardableResult
  private func dyingLaunch(_ launches: SimulatedLaunches, _ policy: ProtectionPolicy) async throws -> ProtectContext? {
    let seen = Mutex<ProtectContext?>(nil)
    _ = try await launches.organizer().launch(policy: policy) { context in seen.withLock { $0 = context } }
    return seen.withLock { $0 }
  }

  /// Launches that die until the last level was attempted and died: normal (count 0), level 1
  /// (count 1), level 2 (count 2). The next launch finds the levels exhausted.
  private func exhaust(_ launches: SimulatedLaunches, _ policy: ProtectionPolicy) async throws {
    let levelsSeen = [
      try await dyingLaunch(launches, policy), try await dyingLaunch(launches, policy),
      try await dyingLaunch(launches, policy),
    ]
    .map { $0?.level.number }
    XCTAssertEqual(levelsSeen, [nil, 1, 2])
    XCTAssertEqual(try launches.state()?.attemptedProtectLevel, 2)
  }

  func testARepairThatThrowsIsRethrownAndTheLaunchStaysUnfinishedAndEscalates() async throws {
    let launches = SimulatedLaunches()
    try await dyingLaunch(launches, levels)  // count 0: normal, dies
    let organizer = launches.organizer()
    do {
      _ = try await organizer.launch(policy: levels) { context in
        XCTAssertEqual(context.level.number, 1)
        throw RepairFailed()
      }
      XCTFail("the repair's error must be rethrown")
    } catch let error as RepairFailed {
      XCTAssertEqual(error, RepairFailed())
    }
    XCTAssertEqual(organizer.currentMode, .protect(levels.levels[0]), "no relaunch after a repair that threw")
    let state = try XCTUnwrap(try launches.state())
    XCTAssertEqual(state.launchesInProgress.map(\.phase), [.protecting], "the launch is unfinished")
    XCTAssertEqual(state.attemptedProtectLevel, 1)
    // The process then exits or dies: the next launch counts it and moves to the next level.
    let next = try await dyingLaunch(launches, levels)
    XCTAssertEqual(next?.count, 2)
    XCTAssertEqual(next?.level.number, 2)
    XCTAssertEqual(next?.exhausted, false)
  }

  func testExhaustedLevelsRepeatTheLastLevelAndRelaunch() async throws {
    let launches = SimulatedLaunches()
    let policy = levels.whenExhausted(.repeatLastLevel)
    try await exhaust(launches, policy)
    let recorder = Recorder()
    let organizer = launches.organizer(observe: recorder)
    let context = Mutex<ProtectContext?>(nil)
    let outcome = try await organizer.launch(policy: policy) { seen in context.withLock { $0 = seen } }
    XCTAssertEqual(context.withLock { $0 }?.exhausted, true)
    XCTAssertEqual(outcome, .repaired(lastLevel))
    XCTAssertEqual(organizer.currentMode, .relaunched(after: lastLevel))
    XCTAssertEqual(recorder.count(of: "exhausted count=3 level=2 repeat-last-level"), 1, "\(recorder.all)")
    await organizer.markLaunchingFinished()
    XCTAssertEqual(try launches.state()?.consecutiveCrashes, 0)
    XCTAssertNil(try launches.state()?.attemptedProtectLevel)
  }

  func testExhaustedLevelsStayDegradedRunTheRepairAndHoldTheLaunch() async throws {
    let launches = SimulatedLaunches()
    let policy = levels.whenExhausted(.stayDegraded)
    try await exhaust(launches, policy)
    let recorder = Recorder()
    let organizer = launches.organizer(observe: recorder)
    let context = Mutex<ProtectContext?>(nil)
    do {
      _ = try await organizer.launch(policy: policy) { seen in context.withLock { $0 = seen } }
      XCTFail("a degraded launch must throw")
    } catch let error as LaunchOrganizerError {
      XCTAssertEqual(error, .degraded(lastLevel))
    }
    XCTAssertEqual(context.withLock { $0 }?.exhausted, true, "the repair ran, told it is exhausted")
    XCTAssertEqual(organizer.currentMode, .protect(lastLevel), "the launch is held")
    XCTAssertFalse(organizer.protectFinished(), "and stays held")
    XCTAssertEqual(recorder.count(of: "exhausted count=3 level=2 stay-degraded"), 1, "\(recorder.all)")
    XCTAssertEqual(recorder.count(of: "relaunch"), 0)
    XCTAssertEqual(try launches.state()?.launchesInProgress.map(\.phase), [.protecting])
  }

  /// `.exit(status:)` ends the process before any repair or launch code: a child process (the
  /// reference app on the async API) whose launches keep dying at `launch.begin`.
  func testExhaustedLevelsExitWithTheStatusBeforeTheRepair() throws {
    let runs = ReferenceAppRuns()
    let app = #"{"levels": [{"name": "clear-caches", "at": 1}], "launch_on": "async", "exhausted": "exit(75)"}"#
    XCTAssertEqual(runs.run(app: app, failpoints: "launch.begin=kill"), .signaled(SIGKILL))  // count 0
    XCTAssertEqual(runs.run(app: app, failpoints: "launch.begin=kill"), .signaled(SIGKILL))  // level 1, relaunch dies
    XCTAssertEqual(runs.run(app: app), .exited(75))
    XCTAssertEqual(runs.lastCount, 2)
    XCTAssertEqual(runs.named("protect_exhausted").last?["action"] as? String, "exit(75)")
    XCTAssertEqual(runs.named("protect_enter").count, 1, "no repair ran in the launch that exited")
    XCTAssertEqual(runs.named("launching_finished").count, 0)
    XCTAssertEqual(try runs.state()?.attemptedProtectLevel, 1)
  }
}
