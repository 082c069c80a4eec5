import LaunchProtection
import XCTest

/// `handleException` stores what a reporter says within the bounds a state may hold: an empty
/// or oversized cause must never make the next launch's state file corrupt.
final class HandleExceptionTests: XCTestCase {
  /// Records a cause in one launch; returns the next launch's organizer.
  private func recordThenLaunch(_ type: String, detail: String?) -> (SimulatedLaunches, LaunchOrganizer) {
    let launches = SimulatedLaunches()
    let first = launches.organizer()
    first.finishLaunching(
      policy: .threshold(100), launch: { first.handleException(type, detail: detail) }, protect: { _ in })
    let next = launches.organizer()
    next.finishLaunching(policy: .threshold(100), launch: {}, protect: { _ in })
    return (launches, next)
  }

  func testAnEmptyTypeIsStoredAsUnknown() throws {
    let (launches, next) = recordThenLaunch("", detail: nil)
    XCTAssertEqual(next.status.decision?.problems, [], "the state file is not corrupt")
    XCTAssertEqual(next.status.decision?.count, 1, "the first launch still counts")
    let cause = try XCTUnwrap(try launches.state()?.lastCrashCause)
    XCTAssertEqual(cause.type, "unknown")
    XCTAssertNil(cause.detail)
  }

  func testAnOversizedCauseIsCutToTheBounds() throws {
    // A two-byte start makes the cut fall inside a four-byte character: its replacement
    // character must still fit.
    let type = "ab" + String(repeating: "😀", count: 200)
    let detail = String(repeating: "é", count: 40_000)  // 80 000 bytes
    let (launches, next) = recordThenLaunch(type, detail: detail)
    XCTAssertEqual(next.status.decision?.problems, [], "the state file is not corrupt")
    XCTAssertEqual(next.status.decision?.count, 1)
    let cause = try XCTUnwrap(try launches.state()?.lastCrashCause)
    XCTAssertLessThanOrEqual(cause.type.utf8.count, LaunchState.maximumIdentifierLength)
    XCTAssertGreaterThan(cause.type.utf8.count, LaunchState.maximumIdentifierLength - 8, "cut, not dropped")
    XCTAssertTrue(cause.type.hasPrefix("ab😀😀"))
    let stored = try XCTUnwrap(cause.detail)
    XCTAssertLessThanOrEqual(stored.utf8.count, LaunchState.maximumDetailLength)
    XCTAssertGreaterThan(stored.utf8.count, LaunchState.maximumDetailLength - 8)
  }

  func testACauseWithinTheBoundsIsStoredAsGiven() throws {
    let type = String(repeating: "x", count: LaunchState.maximumIdentifierLength - 3)
    let (launches, next) = recordThenLaunch(type, detail: "short")
    XCTAssertEqual(next.status.decision?.problems, [])
    XCTAssertEqual(try launches.state()?.lastCrashCause?.type, type)
    XCTAssertEqual(try launches.state()?.lastCrashCause?.detail, "short")
  }
}
