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

  /// The app's levels as its own enum: each repair that dies moves to the next case, the last
  /// repeats, and a level the enum does not name (a custom policy's) is nil, not a fall-through.
  func testAnEnumLadderHandsEachRepairItsOwnCase() {
    enum Repair: String { case clearCaches, resetConfig, wipeData }
    let launches = SimulatedLaunches()
    launches.organizer().finishLaunching(policy: .threshold(1000), launch: {}, protect: { _ in })
    let seen = Mutex<[Repair?]>([])
    for _ in 0..<4 {
      launches.organizer().finishLaunching(
        policy: .escalation([Repair.clearCaches: 1, .resetConfig: 2, .wipeData: 3]), launch: {},
        protect: { context in seen.withLock { $0.append(context.level(as: Repair.self)) } })
    }
    XCTAssertEqual(seen.withLock { $0 }, [.clearCaches, .resetConfig, .wipeData, .wipeData])
    let custom = Mutex<[Repair?]>([])
    launches.organizer().finishLaunching(
      policy: .custom { _ in true }, launch: {},
      protect: { context in custom.withLock { $0.append(context.level(as: Repair.self)) } })
    XCTAssertEqual(custom.withLock { $0 }, [nil])
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
    let decision = try XCTUnwrap(organizer.status.decision)
    XCTAssertEqual(decision, decision)
    var other = decision
    other.mode = .protect(ProtectLevel(number: 1, name: "clear caches", minimumCrashes: 2))
    XCTAssertNotEqual(decision, other)
  }
}
