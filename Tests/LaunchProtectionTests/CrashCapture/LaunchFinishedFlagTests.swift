import LaunchProtection
import Synchronization
import XCTest

/// `CrashCapture.isLaunchFinished`, what an app's own SIGTERM handler (and the crash record's
/// `after_launch`) goes by: false from the start of the launch until `launchingFinished()`.
final class LaunchFinishedFlagTests: XCTestCase {
  func testTheFlagIsFalseDuringTheLaunchAndTrueAfterIt() {
    let launches = SimulatedLaunches()
    // A launch finished before (in this process) leaves the flag set.
    let earlier = launches.organizer()
    earlier.finishLaunching(policy: .threshold(100), launch: { earlier.launchingFinished() }, protect: { _ in })
    XCTAssertTrue(CrashCapture.isLaunchFinished)
    let during = Mutex<Bool?>(nil)
    let organizer = launches.organizer()
    organizer.finishLaunching(
      policy: .threshold(100),
      launch: {
        during.withLock { $0 = CrashCapture.isLaunchFinished }
        organizer.launchingFinished()
      }, protect: { _ in })
    XCTAssertEqual(during.withLock { $0 }, false, "during the launch")
    XCTAssertTrue(CrashCapture.isLaunchFinished, "after launchingFinished()")
  }
}
