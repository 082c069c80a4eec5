import XCTest

@testable import LaunchProtection

/// `exit(0)` during the launch is a clean exit, recorded by the exit tracker: it must hold the
/// organizer of an unfinished launch, whatever the app keeps.
final class ExitTrackerTests: XCTestCase {
  func testAnUnfinishedLaunchsOrganizerIsKeptForExitAndLetGoOnceFinished() throws {
    weak var released: LaunchOrganizer?
    do {
      let organizer = LaunchOrganizer(configuration: SimulatedLaunches().configuration())
      organizer.finishLaunching(policy: .threshold(100), launch: {}, protect: { _ in })
      released = organizer
    }
    let organizer = try XCTUnwrap(released, "the app let its organizer go mid-launch; the tracker must keep it")
    XCTAssertTrue(ExitTracker.shared.trackedOrganizers().contains { $0 === organizer })
    organizer.launchingFinished()
    XCTAssertFalse(ExitTracker.shared.trackedOrganizers().contains { $0 === organizer })
  }
}

/// PID 1 of a container restarted within one clock tick: the new process has the pid, start
/// time (10 ms ticks) and boot id of the one that died, so "is it alive?" says yes.
final class ReusedIdentityTests: XCTestCase {
  /// Every launch of this configuration is PID 1 with the same start time and boot id, alive;
  /// its state lives in `launches`' directory.
  private func pidOneConfiguration(_ launches: SimulatedLaunches) -> LaunchOrganizer.Configuration {
    let pidOne = ProcessIdentity(pid: 1, startTime: 4242, bootID: "boot-A")
    var configuration = launches.configuration()
    configuration.environment = LaunchEnvironment(
      current: { pidOne }, isAlive: { $0 == pidOne }, executableID: { "build-1" })
    return configuration
  }

  func testADeadLaunchWithThisProcesssOwnIdentityIsCounted() {
    let launches = SimulatedLaunches()
    let configuration = pidOneConfiguration(launches)
    let first = LaunchOrganizer(configuration: configuration)
    first.finishLaunching(policy: .threshold(100), launch: {}, protect: { _ in })
    ExitTracker.shared.untrack(first)  // the first container's process died mid-launch
    let second = LaunchOrganizer(configuration: configuration)
    second.finishLaunching(policy: .threshold(100), launch: {}, protect: { _ in })
    defer { second.launchingFinished() }
    XCTAssertEqual(second.status.decision?.count, 1, "a dead launch that had this process's pid and start time")
  }

  func testAnUnfinishedLaunchOfThisVeryProcessIsStillRunning() {
    let launches = SimulatedLaunches()
    let configuration = pidOneConfiguration(launches)
    let first = LaunchOrganizer(configuration: configuration)
    first.finishLaunching(policy: .threshold(100), launch: {}, protect: { _ in })
    defer { first.launchingFinished() }
    let second = LaunchOrganizer(configuration: configuration)
    second.finishLaunching(policy: .threshold(100), launch: {}, protect: { _ in })
    defer { second.launchingFinished() }
    XCTAssertEqual(second.status.decision?.count, 0, "the first organizer's launch runs in this process")
  }
}
