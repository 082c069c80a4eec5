import LaunchProtection
import XCTest

/// A launch that was still running when another one started is not counted then, and it is not
/// resolved by the other one's success either: its sentinel stays until its own fate is known.
final class SiblingLaunchTests: XCTestCase {
  func testASiblingStillRunningKeepsItsSentinelWhenAnotherLaunchFinishes() throws {
    let launches = SimulatedLaunches()
    let sibling = launches.organizer()
    sibling.finishLaunching(policy: .threshold(100), launch: {}, protect: { _ in })
    let siblingPID = try XCTUnwrap(try launches.state()?.launchesInProgress.first?.process.pid)
    launches.keepAlive(siblingPID)
    let finished = launches.organizer()
    finished.finishLaunching(policy: .threshold(100), launch: { finished.launchingFinished() }, protect: { _ in })
    XCTAssertEqual(finished.status.decision?.ignored.map(\.reason), [.stillRunning])
    XCTAssertEqual(
      try launches.state()?.launchesInProgress.map(\.process.pid), [siblingPID], "the sibling's sentinel stays")
    // The sibling then dies unfinished: the next launch counts it.
    launches.dies(siblingPID)
    let next = launches.organizer()
    next.finishLaunching(policy: .threshold(100), launch: {}, protect: { _ in })
    XCTAssertEqual(next.status.decision?.count, 1)
    XCTAssertEqual(next.status.decision?.countedCrashes.map(\.process.pid), [siblingPID])
  }
}
