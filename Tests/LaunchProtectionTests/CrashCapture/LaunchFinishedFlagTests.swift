import Synchronization
import XCTest

@testable import LaunchProtection

/// `CrashCapture.isLaunchFinished`, what an app's own SIGTERM handler (and the crash record's
/// `after_launch`) goes by: false from the start of the launch until `launchingFinished()`,
/// and with several organizers, until each launch that began finished. Other tests of this
/// process may leave launches unfinished: the flag is then false throughout, and the count of
/// unfinished launches says so.
final class LaunchFinishedFlagTests: XCTestCase {
  func testTheFlagIsFalseDuringTheLaunchAndTrueAfterIt() {
    let launches = SimulatedLaunches()
    let others = CrashCapture.unfinishedLaunches
    // A launch finished before (in this process) leaves the flag as the others leave it.
    let earlier = launches.organizer()
    earlier.finishLaunching(policy: .threshold(100), launch: { earlier.launchingFinished() }, protect: { _ in })
    XCTAssertEqual(CrashCapture.unfinishedLaunches, others)
    XCTAssertEqual(CrashCapture.isLaunchFinished, others == 0)
    let during = Mutex<Bool?>(nil)
    let organizer = launches.organizer()
    organizer.finishLaunching(
      policy: .threshold(100),
      launch: {
        during.withLock { $0 = CrashCapture.isLaunchFinished }
        organizer.launchingFinished()
      }, protect: { _ in })
    XCTAssertEqual(during.withLock { $0 }, false, "during the launch")
    XCTAssertEqual(CrashCapture.unfinishedLaunches, others, "after launchingFinished()")
    XCTAssertEqual(CrashCapture.isLaunchFinished, others == 0, "after launchingFinished(), \(others) others unfinished")
  }

  /// Two launches at once: finished only once both are.
  func testTwoLaunchesAtOnceAreFinishedWhenBothAre() {
    let launches = SimulatedLaunches()
    let others = CrashCapture.unfinishedLaunches
    let first = launches.organizer()
    let second = launches.organizer()
    first.finishLaunching(policy: .threshold(100), launch: {}, protect: { _ in })
    second.finishLaunching(policy: .threshold(100), launch: {}, protect: { _ in })
    XCTAssertEqual(CrashCapture.unfinishedLaunches, others + 2)
    first.launchingFinished()
    XCTAssertFalse(CrashCapture.isLaunchFinished, "the second launch runs")
    second.launchingFinished()
    XCTAssertEqual(CrashCapture.unfinishedLaunches, others)
    XCTAssertEqual(CrashCapture.isLaunchFinished, others == 0)
  }
}
