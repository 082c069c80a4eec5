import Foundation
import LaunchProtection
import Synchronization
import XCTest

/// `finishLaunching` claims the organizer before its first state write: of two threads that
/// call it at once, exactly one runs a launch, the other returns at once.
final class LaunchClaimTests: XCTestCase {
  func testTwoThreadsFinishingLaunchingAtOnceRunOneLaunch() {
    for round in 1...40 {
      let launches = SimulatedLaunches()
      let organizer = launches.organizer()
      let ran = Mutex(0)
      DispatchQueue.concurrentPerform(iterations: 2) { _ in
        organizer.finishLaunching(
          policy: .threshold(1000),
          launch: {
            ran.withLock { $0 += 1 }
            organizer.launchingFinished()
          }, protect: { _ in })
      }
      XCTAssertEqual(ran.withLock { $0 }, 1, "round \(round): one launch ran")
    }
  }
}
