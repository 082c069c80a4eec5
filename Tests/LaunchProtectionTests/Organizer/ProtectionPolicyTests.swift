import Failpoints
import Foundation
import Synchronization
import XCTest

@testable import LaunchProtection

/// Policies: from which count they protect, which are custom, and decisions' equality.
final class ProtectionPolicyTests: XCTestCase {
  /// `protects(count:)` agrees with the ladder: from a level's minimum count on, not before.
  func testAPolicyProtectsFromItsThresholdOn() {
    let policy = ProtectionPolicy.threshold(2)
    XCTAssertFalse(policy.protects(count: 1))
    XCTAssertTrue(policy.protects(count: 2))
    XCTAssertTrue(policy.protects(count: 3))
  }

  func testOnlyAClosurePolicyIsCustom() {
    XCTAssertFalse(ProtectionPolicy.threshold(2).isCustom)
    XCTAssertFalse(ProtectionPolicy.escalation([("clear caches", 2)]).isCustom)
    XCTAssertTrue(ProtectionPolicy.custom { $0 >= 3 }.isCustom)
  }

  func testADecisionEqualsItselfAndNotOneInAnotherMode() throws {
    let launches = SimulatedLaunches()
    let organizer = launches.organizer()
    organizer.finishLaunching(policy: .threshold(1000), launch: {}, protect: { _ in })
    let decision = try XCTUnwrap(organizer.decision)
    XCTAssertEqual(decision, decision)
    var other = decision
    other.mode = .protect(ProtectLevel(number: 1, name: "clear caches", minimumCrashes: 2))
    XCTAssertNotEqual(decision, other)
  }
}
