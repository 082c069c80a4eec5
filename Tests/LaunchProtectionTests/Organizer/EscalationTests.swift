import LaunchProtection
import Synchronization
import XCTest

final class EscalationTests: XCTestCase {
  let policy = ProtectionPolicy.escalation([("clear-caches", 2), ("reset-config", 4), ("wipe-data", 6)])

  /// One launch; returns the level it protected at (0 = normal). `finish` decides how it ends.
  private func launch(_ launches: SimulatedLaunches, repairFinishes: Bool = false, launchFinishes: Bool = false) -> (
    count: Int, level: Int
  ) {
    let organizer = launches.organizer()
    let level = Mutex(0)
    organizer.finishLaunching(
      policy: policy,
      launch: { if launchFinishes { organizer.launchingFinished() } },
      protect: { context in
        level.withLock { $0 = context.level.number }
        if repairFinishes { organizer.protectFinished() }
      })
    return (organizer.status.decision!.count, level.withLock { $0 })
  }

  func testLevelsFollowTheCountWhenRelaunchesKeepCrashing() {
    let launches = SimulatedLaunches()
    var seen: [Int] = []
    for _ in 0..<8 { seen.append(launch(launches, repairFinishes: true).level) }
    // counts 0..7: normal, normal, L1, then each crash after an attempted level escalates.
    XCTAssertEqual(seen, [0, 0, 1, 2, 3, 3, 3, 3])
  }

  func testCrashInsideARepairMovesToTheNextLevelInsteadOfLooping() throws {
    let launches = SimulatedLaunches()
    XCTAssertEqual(launch(launches).level, 0)
    XCTAssertEqual(launch(launches).level, 0)
    // Repairs that die before protectFinished().
    XCTAssertEqual(launch(launches).level, 1)
    XCTAssertEqual(try launches.state()?.attemptedProtectLevel, 1, "level persisted before the repair ran")
    XCTAssertEqual(launch(launches).level, 2)
    XCTAssertEqual(launch(launches).level, 3)
    XCTAssertEqual(launch(launches).level, 3, "past the last level, the last level repeats")
    // A repair that works and a launch that finishes forgets the escalation.
    let recovered = launch(launches, repairFinishes: true, launchFinishes: true)
    XCTAssertEqual(recovered.level, 3)
    XCTAssertNil(try launches.state()?.attemptedProtectLevel)
    XCTAssertEqual(launch(launches).level, 0)
  }

  func testLevelsAreOrderedByTheirThresholdWhateverTheOrderGiven() {
    let levels = ProtectionPolicy.escalation([("reset-config", 4), ("clear-caches", 2)])
    XCTAssertEqual(levels.levels.map(\.name), ["clear-caches", "reset-config"])
    XCTAssertEqual(levels.levels.map(\.number), [1, 2])
  }
}
