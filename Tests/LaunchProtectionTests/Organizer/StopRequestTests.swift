import Failpoints
import Foundation
import Synchronization
import XCTest

@testable import LaunchProtection

/// `stopRequested()`: recorded once, and only during the launch.
final class StopRequestTests: XCTestCase {
  /// A stop is recorded once: a second `stopRequested()` (a second SIGTERM, or the app's own
  /// shutdown path after the organizer's handler) neither writes again nor tells the observers again.
  func testAStopRequestedTwiceIsRecordedOnce() throws {
    let launches = SimulatedLaunches()
    let recorder = Recorder()
    let organizer = launches.organizer(observe: recorder)
    organizer.finishLaunching(
      policy: .threshold(1000),
      launch: {
        organizer.stopRequested()
        organizer.stopRequested()
      }, protect: { _ in })
    XCTAssertEqual(recorder.count(of: "stop_requested"), 1, "\(recorder.all)")
  }

  /// A stop request after the launch finished is not a stop of a launch: nothing is recorded
  /// and the observers hear nothing (the organizer's SIGTERM handler is gone by then too).
  func testAStopAfterTheLaunchFinishedIsNotRecorded() {
    let recorder = Recorder()
    let organizer = SimulatedLaunches().organizer(observe: recorder)
    organizer.finishLaunching(
      policy: .threshold(1000), launch: { organizer.launchingFinished() }, protect: { _ in })
    organizer.stopRequested()
    organizer.launchingFinished()
    XCTAssertEqual(recorder.count(of: "stop_requested"), 0, "\(recorder.all)")
    XCTAssertEqual(recorder.count(of: "launching_finished"), 1, "\(recorder.all)")
  }
}
