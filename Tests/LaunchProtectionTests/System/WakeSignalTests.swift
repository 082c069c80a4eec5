import Failpoints
import Foundation
import XCTest

@testable import LaunchProtection

/// The semaphore the library's threads wait on (CLOCK_MONOTONIC deadlines, no libdispatch).
final class WakeSignalTests: XCTestCase {
  func testEachSignalLetsOneWaitThroughAndAPastDeadlineEndsAWaitWithNone() {
    let wake = WakeSignal()
    wake.signal()
    wake.signal()
    XCTAssertTrue(wake.wait(until: 0), "a signal given before the wait was lost")
    XCTAssertTrue(wake.wait(until: 0), "the second signal was lost")
    XCTAssertFalse(wake.wait(until: 0), "a wait went through with no signal left")
  }

  func testAWaitEndsAtItsDeadlineNotBefore() {
    let wake = WakeSignal()
    let start = MonotonicClock.nanoseconds()
    XCTAssertFalse(wake.wait(until: start + 50_000_000))
    XCTAssertGreaterThanOrEqual(MonotonicClock.nanoseconds() - start, 50_000_000, "the wait ended before its deadline")
  }

  func testASignalFromAnotherThreadEndsAWaitWithoutLimit() {
    let wake = WakeSignal()
    let thread = Thread { wake.signal() }
    thread.start()
    XCTAssertTrue(wake.wait())
  }
}
