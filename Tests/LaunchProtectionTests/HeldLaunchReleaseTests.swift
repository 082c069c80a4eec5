import LaunchProtection
import XCTest

/// The held launch runs once and is then let go: what it captured does not live on in the
/// organizer (a server's whole start-up graph, for the life of the process).
final class HeldLaunchReleaseTests: XCTestCase {
  private final class Captured: Sendable {}

  func testTheHeldLaunchIsReleasedOnceItRan() {
    let launches = SimulatedLaunches()
    for _ in 0..<2 { launches.organizer().finishLaunching(policy: .threshold(2), launch: {}, protect: { _ in }) }
    let organizer = launches.organizer()
    weak var released: Captured?
    do {
      let captured = Captured()
      released = captured
      organizer.finishLaunching(
        policy: .threshold(2), launch: { _ = captured }, protect: { _ in organizer.protectFinished() })
    }
    XCTAssertEqual(
      organizer.currentMode, .relaunched(after: ProtectLevel(number: 1, name: "protect", minimumCrashes: 2)))
    XCTAssertNil(released, "the held launch was let go after it ran")
    withExtendedLifetime(organizer) {}
  }
}
