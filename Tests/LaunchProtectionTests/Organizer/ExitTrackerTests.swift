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

  /// Every launching organizer of the process is told about `exit`, not only the newest.
  func testExitTellsEveryTrackedOrganizer() {
    let launches = SimulatedLaunches()
    let first = launches.organizer()
    let second = launches.organizer()
    ExitTracker.shared.track(first, launchID: "first")
    ExitTracker.shared.track(second, launchID: "second")
    defer {
      ExitTracker.shared.untrack(first)
      ExitTracker.shared.untrack(second)
    }
    let tracked = ExitTracker.shared.trackedOrganizers()
    XCTAssertTrue(tracked.contains { $0 === first }, "the first one")
    XCTAssertTrue(tracked.contains { $0 === second }, "the second one")
    ExitTracker.shared.untrack(second)
    XCTAssertTrue(ExitTracker.shared.trackedOrganizers().contains { $0 === first }, "the first one stays")
  }
}
