import Foundation
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
}
