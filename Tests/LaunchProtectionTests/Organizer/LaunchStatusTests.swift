import Failpoints
import Foundation
import Synchronization
import XCTest

@testable import LaunchProtection

/// `organizer.status` through each mode, and its readiness mapping.
final class LaunchStatusTests: XCTestCase {
  /// Starts launches that die unfinished (abandoned, their simulated processes dead).
  private func crash(_ launches: SimulatedLaunches, times: Int, policy: ProtectionPolicy) {
    for _ in 0..<times {
      launches.organizer().finishLaunching(policy: policy, launch: {}, protect: { _ in })
    }
  }

  func testANormalLaunchIsNotReadyUntilItFinishes() throws {
    let launches = SimulatedLaunches()
    let organizer = launches.organizer()
    let idle = organizer.status
    XCTAssertEqual(idle.launchMode, .idle)
    XCTAssertEqual(idle.readiness, .launching)
    XCTAssertNil(idle.startedAt)
    XCTAssertNil(idle.protectLevel)

    let during = Mutex<LaunchStatus?>(nil)
    organizer.finishLaunching(
      policy: .threshold(2), launch: { during.withLock { $0 = organizer.status } }, protect: { _ in })
    let launching = try XCTUnwrap(during.withLock { $0 })
    XCTAssertEqual(launching.launchMode, .normal)
    XCTAssertEqual(launching.count, 0)
    XCTAssertNil(launching.protectLevel)
    XCTAssertFalse(launching.isReady)
    XCTAssertFalse(launching.launchFinished)
    XCTAssertNotNil(launching.startedAt)
    XCTAssertGreaterThanOrEqual(launching.since, idle.since)
    XCTAssertNil(launching.launchTime)

    organizer.launchingFinished()
    let finished = organizer.status
    XCTAssertEqual(finished.launchMode, .finished)
    XCTAssertTrue(finished.launchFinished)
    XCTAssertEqual(finished.readiness, .ready)
    XCTAssertTrue(finished.isReady)
    XCTAssertGreaterThanOrEqual(finished.since, launching.since)
    XCTAssertEqual(
      finished.launchTime.map { Double($0.components.seconds) + Double($0.components.attoseconds) / 1e18 } ?? -1,
      finished.since.timeIntervalSince(launching.startedAt!), accuracy: 1e-6)
  }

  func testProtectThenRelaunchAreNotReadyAndTheFinishedLaunchKeepsItsLevelAndCount() throws {
    let launches = SimulatedLaunches()
    let policy = ProtectionPolicy.escalation([("clear-caches", 2)])
    crash(launches, times: 2, policy: policy)
    let organizer = launches.organizer()
    let seen = Mutex<[LaunchStatus]>([])
    organizer.finishLaunching(
      policy: policy,
      launch: { seen.withLock { $0.append(organizer.status) } },
      protect: { _ in
        seen.withLock { $0.append(organizer.status) }
        organizer.protectFinished()
      })
    let statuses = seen.withLock { $0 }
    let level = ProtectLevel(number: 1, name: "clear-caches", minimumCrashes: 2)
    XCTAssertEqual(statuses.map(\.launchMode), [.protect(level), .relaunched(after: level)])
    XCTAssertEqual(statuses.map(\.modeName), ["protect", "relaunched"])
    XCTAssertEqual(statuses.map(\.readiness), [.launching, .launching])
    XCTAssertEqual(statuses.map(\.protectLevel), [level, level])
    XCTAssertEqual(statuses.map(\.count), [2, 2])
    XCTAssertGreaterThanOrEqual(statuses[1].since, statuses[0].since)
    XCTAssertEqual(statuses[0].description.prefix(38), "protect level 1 (clear-caches), count ")

    organizer.launchingFinished()
    let finished = organizer.status
    XCTAssertEqual(finished.launchMode, .finished)
    XCTAssertTrue(finished.isReady)
    XCTAssertEqual(finished.protectLevel, level, "the level this launch ran at stays visible")
    XCTAssertEqual(finished.description.prefix(39), "finished level 1 (clear-caches), count ")
    XCTAssertEqual(finished.count, 2, "the count this launch saw, not the persisted 0")
    XCTAssertEqual(try launches.state()?.consecutiveCrashes, 0)
  }

  func testTheAsyncAPIReportsTheSameModes() async throws {
    let launches = SimulatedLaunches()
    crash(launches, times: 2, policy: .threshold(2))
    let organizer = launches.organizer()
    let inRepair = Mutex<LaunchStatus?>(nil)
    let outcome = try await organizer.launch(policy: .threshold(2)) { _ in
      inRepair.withLock { $0 = organizer.status }
    }
    XCTAssertEqual(outcome, .repaired(ProtectLevel(number: 1, name: "protect", minimumCrashes: 2)))
    XCTAssertEqual(inRepair.withLock { $0?.modeName }, "protect")
    XCTAssertEqual(organizer.status.modeName, "relaunched")
    XCTAssertFalse(organizer.status.isReady)
    await organizer.markLaunchingFinished()
    XCTAssertEqual(organizer.status.launchMode, .finished)
    XCTAssertTrue(organizer.status.isReady)
  }

  /// Two crashes, then a repair that dies too: the fourth launch finds the only level exhausted.
  private func degradedOrganizer(readyWhenDegraded: Bool) -> LaunchOrganizer {
    let launches = SimulatedLaunches()
    let policy = ProtectionPolicy.threshold(2).whenExhausted(.stayDegraded)
    crash(launches, times: 3, policy: policy)
    var configuration = launches.configuration()
    configuration.readyWhenDegraded = readyWhenDegraded
    let organizer = LaunchOrganizer(configuration: configuration)
    organizer.finishLaunching(
      policy: policy, launch: { XCTFail("a degraded launch is held") },
      protect: { context in
        XCTAssertTrue(context.exhausted)
        XCTAssertFalse(organizer.protectFinished(), "refused when degraded")
      })
    return organizer
  }

  func testDegradedIsNotReadyByDefault() {
    let status = degradedOrganizer(readyWhenDegraded: false).status
    XCTAssertTrue(status.isDegraded)
    XCTAssertEqual(status.launchMode, .protect(ProtectLevel(number: 1, name: "protect", minimumCrashes: 2)))
    XCTAssertEqual(status.modeName, "degraded")
    XCTAssertEqual(status.description.prefix(36), "degraded level 1 (protect), count 3,")
    XCTAssertEqual(status.readiness, .degraded)
    XCTAssertFalse(status.isReady)
    XCTAssertFalse(status.launchFinished)
    XCTAssertEqual(status.protectLevel?.number, 1)
    XCTAssertEqual(status.count, 3)
  }

  func testDegradedIsReadyWhenTheAppSaysSo() {
    let status = degradedOrganizer(readyWhenDegraded: true).status
    XCTAssertTrue(status.isDegraded)
    XCTAssertEqual(status.readiness, .ready)
    XCTAssertTrue(status.isReady)
    XCTAssertFalse(status.launchFinished, "ready, yet the launch never finished")
  }

  func testLastCauseComesFromTheStateAndFromHandleException() {
    let launches = SimulatedLaunches()
    let first = launches.organizer()
    XCTAssertNil(first.status.lastCause)
    first.finishLaunching(policy: .threshold(2), launch: {}, protect: { _ in })
    first.handleException("NSInvalidArgumentException")
    XCTAssertEqual(first.status.lastCause, "NSInvalidArgumentException")

    let next = launches.organizer()
    next.finishLaunching(policy: .threshold(2), launch: {}, protect: { _ in })
    XCTAssertEqual(next.status.lastCause, "NSInvalidArgumentException", "read with the state at the launch")
    XCTAssertEqual(next.status.count, 1)
  }

  /// The description's date is written without Foundation's format style, as it wrote it.
  func testTheDescriptionsDateIsFoundationsISO8601() {
    let times: [TimeInterval] = [0, 1_764_000_000.75, 951_782_400, 4_102_444_799.999, -86_400.5, 1_700_000_000]
    for time in times {
      let date = Date(timeIntervalSince1970: time)
      let status = LaunchStatus(launchMode: .finished, count: 0, since: date)
      XCTAssertTrue(status.description.hasSuffix("since \(date.formatted(.iso8601))"), "\(time): \(status.description)")
    }
  }

  func testADegradedServiceIsNotReadyByDefault() {
    XCTAssertFalse(
      LaunchOrganizer.Configuration(stateDirectory: "/nonexistent").readyWhenDegraded,
      "the documented default keeps a readiness probe failing")
  }

  /// `LaunchStatus.since` is when the current mode began: the normal launch, and the relaunch
  /// after `protectFinished()`, not when the organizer was made.
  func testStatusSinceIsWhenTheModeBegan() throws {
    let launches = SimulatedLaunches()
    // One crashed launch, so that the next one (threshold 1) is in protect mode.
    let crashed = launches.organizer()
    crashed.finishLaunching(policy: .threshold(1000), launch: {}, protect: { _ in })
    let organizer = launches.organizer()
    usleep(20_000)
    let beforeLaunch = Date()
    let seen = Mutex<(launch: Date?, relaunch: Date?, repairEnded: Date?)>((nil, nil, nil))
    organizer.finishLaunching(
      policy: .threshold(1),
      launch: {
        seen.withLock { $0.relaunch = organizer.status.since }
        usleep(20_000)
      },
      protect: { _ in
        seen.withLock { $0.launch = organizer.status.since }
        usleep(20_000)
        seen.withLock { $0.repairEnded = Date() }
        organizer.protectFinished()
      })
    let times = seen.withLock { $0 }
    XCTAssertGreaterThanOrEqual(try XCTUnwrap(times.launch), beforeLaunch, "protect mode began at finishLaunching")
    XCTAssertGreaterThanOrEqual(
      try XCTUnwrap(times.relaunch), try XCTUnwrap(times.repairEnded), "the relaunch began at protectFinished")
    let beforeFinish = Date()
    organizer.launchingFinished()
    XCTAssertGreaterThanOrEqual(organizer.status.since, beforeFinish, "finished at launchingFinished")
  }

  func testAStatusMadeWithoutSayingIsNotReadyWhenDegraded() {
    let degraded = LaunchMode.protect(ProtectLevel(number: 1, name: "protect", minimumCrashes: 2))
    XCTAssertEqual(LaunchStatus(launchMode: degraded, isDegraded: true, since: Date()).readiness, .degraded)
    XCTAssertEqual(
      LaunchStatus(launchMode: degraded, isDegraded: true, since: Date(), readyWhenDegraded: true).readiness, .ready)
    XCTAssertEqual(LaunchStatus(launchMode: degraded, since: Date()).protectLevel?.number, 1, "the mode's level")
  }
}
