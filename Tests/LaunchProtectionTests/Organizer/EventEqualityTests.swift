import Foundation
import LaunchProtection
import XCTest

/// `LaunchProtectionEvent`'s `==` compares its kind and every payload field: the payload is
/// boxed (one reference, not a dozen inline optionals) and its `==` is written by hand, so
/// each field is checked here to differ, and equal payloads in two boxes to compare equal.
final class EventEqualityTests: XCTestCase {
  private let first = ProtectLevel(number: 1, name: "clear-caches", minimumCrashes: 2)
  private let second = ProtectLevel(number: 2, name: "reset-config", minimumCrashes: 3)

  func testEqualPayloadsInTwoBoxesAreEqual() {
    XCTAssertEqual(
      LaunchProtectionEvent.protectEnter(count: 2, level: first), .protectEnter(count: 2, level: first))
    XCTAssertEqual(
      LaunchProtectionEvent.lifeAction(key: "k", outcome: .ran), .lifeAction(key: "k", outcome: .ran))
    XCTAssertEqual(LaunchProtectionEvent.relaunch, .relaunch)
  }

  func testEachPayloadFieldTakesPartInEquality() {
    let cause = CrashCause(type: "SIGSEGV", recordDate: Date(timeIntervalSince1970: 1))
    let pairs: [(LaunchProtectionEvent, LaunchProtectionEvent)] = [
      (.protectEnter(count: 2, level: first), .protectEnter(count: 3, level: first)),
      (.protectEnter(count: 2, level: first), .protectEnter(count: 2, level: second)),
      (.lifeAction(key: "a", outcome: .ran), .lifeAction(key: "b", outcome: .ran)),
      (.lifeAction(key: "a", outcome: .ran), .lifeAction(key: "a", outcome: .protected)),
      (.exceptionRecorded(cause), .exceptionRecorded(CrashCause(type: "SIGBUS", recordDate: cause.recordDate))),
      (.uncountedExit(.cleanExit), .uncountedExit(.terminated)),
      (
        .launchDeadlineExceeded(phase: .launching, deadline: .seconds(1)),
        .launchDeadlineExceeded(phase: .launching, deadline: .seconds(2))
      ),
      (
        .levelsExhausted(count: 4, level: second, action: .repeatLastLevel),
        .levelsExhausted(count: 4, level: second, action: .stayDegraded)
      ),
      (.protectFinish(level: first), .protectEnter(count: 0, level: first)),
      (.relaunch, .stopRequested),
    ]
    for (index, (lhs, rhs)) in pairs.enumerated() {
      XCTAssertNotEqual(lhs, rhs, "pair \(index): \(lhs) vs \(rhs)")
      XCTAssertEqual(lhs, lhs, "pair \(index)")
    }
  }
}
