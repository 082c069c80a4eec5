import Foundation
import Synchronization
import XCTest

@testable import LaunchProtection

/// Rules too small for a file of their own: return values and defaults the documentation
/// states, and equality of a decision.
final class SmallRulesTests: XCTestCase {
  func testKeepAliveWithoutAWatchdogSendsNothingAndSaysSo() {
    XCTAssertNil(ProcessInfo.processInfo.environment["WATCHDOG_USEC"], "the test runs without a watchdog")
    XCTAssertNil(SystemdNotify.watchdogInterval)
    XCTAssertFalse(SimulatedLaunches().organizer().keepAlive())
  }

  func testANotifySocketPathTooLongForAnAddressIsNotSent() {
    let long = "/tmp/" + String(repeating: "n", count: 200)
    XCTAssertFalse(SystemdNotify.send("READY=1", to: long))
    XCTAssertFalse(SystemdNotify.send("READY=1", to: "@" + String(repeating: "n", count: 200)))
  }

  func testRefreshModulesSucceedsWithOrWithoutAnInstalledHandler() {
    XCTAssertTrue(CrashCapture.refreshModules())
  }

  func testADegradedServiceIsNotReadyByDefault() {
    XCTAssertFalse(
      LaunchOrganizer.Configuration(stateDirectory: "/nonexistent").readyWhenDegraded,
      "the documented default keeps a readiness probe failing")
  }

  func testUnwindTablesArePrefaultedByDefault() {
    XCTAssertTrue(CrashCapture.Options().prefaultUnwindTables, "the documented default")
  }

  func testADecisionEqualsItselfAndNotOneInAnotherMode() throws {
    let launches = SimulatedLaunches()
    let organizer = launches.organizer()
    organizer.finishLaunching(policy: .threshold(1000), launch: {}, protect: { _ in })
    let decision = try XCTUnwrap(organizer.decision)
    XCTAssertEqual(decision, decision)
    var other = decision
    other.mode = .protect(ProtectLevel(number: 1, name: "clear caches", minimumCrashes: 2))
    XCTAssertNotEqual(decision, other)
  }

  func testSendWithoutANotifySocketIsFalse() {
    XCTAssertNil(ProcessInfo.processInfo.environment["NOTIFY_SOCKET"], "the test runs outside systemd")
    XCTAssertFalse(SystemdNotify.send("READY=1"))
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
      launch: { seen.withLock { $0.relaunch = organizer.status.since } },
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
  }
}
