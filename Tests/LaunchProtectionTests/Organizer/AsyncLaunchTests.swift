import Foundation
import LaunchProtection
import Synchronization
import XCTest

/// The async API over the same state machine.
final class AsyncLaunchTests: XCTestCase {
  func testNormalModeReturnsAtOnceAndFinishes() async throws {
    let launches = SimulatedLaunches()
    let organizer = launches.organizer()
    let outcome = try await organizer.launch(policy: .threshold(2)) { _ in XCTFail("no repair in normal mode") }
    XCTAssertEqual(outcome, .normal)
    XCTAssertEqual(try launches.state()?.launchesInProgress.count, 1, "the sentinel is on disk during the launch")
    await organizer.markLaunchingFinished()
    XCTAssertEqual(organizer.currentMode, .finished)
    XCTAssertEqual(try launches.state()?.launchesInProgress.count, 0)
  }

  func testProtectModeAwaitsTheRepairThenRelaunches() async throws {
    let launches = SimulatedLaunches()
    for _ in 0..<2 { _ = try await launches.organizer().launch(policy: .threshold(2)) { _ in } }  // two crashes
    let organizer = launches.organizer()
    let repaired = Mutex(false)
    let outcome = try await organizer.launch(policy: .threshold(2)) { context in
      XCTAssertEqual(context.count, 2)
      repaired.withLock { $0 = true }
    }
    XCTAssertTrue(repaired.withLock { $0 })
    XCTAssertEqual(outcome, .repaired(ProtectLevel(number: 1, name: "protect", minimumCrashes: 2)))
    XCTAssertEqual(
      organizer.currentMode, .relaunched(after: ProtectLevel(number: 1, name: "protect", minimumCrashes: 2)))
    await organizer.markLaunchingFinished()
    XCTAssertEqual(try launches.state()?.consecutiveCrashes, 0)
  }

  func testASecondLaunchThrows() async throws {
    let organizer = SimulatedLaunches().organizer()
    _ = try await organizer.launch(policy: .threshold(2)) { _ in }
    do {
      _ = try await organizer.launch(policy: .threshold(2)) { _ in }
      XCTFail("a second launch must throw")
    } catch let error as LaunchOrganizerError {
      XCTAssertEqual(error, .alreadyStarted)
    }
  }

  /// Found by `chaos explore` on the Hummingbird example: a stop request queued behind a hung
  /// `launchingFinished` was never recorded, so the hang then counted.
  func testAStopIsRecordedWhileLaunchingFinishedHangs() async throws {
    let launches = SimulatedLaunches()
    try launches.failpoints.configure("launch.finished=sleep(2000)")
    let organizer = launches.organizer()
    _ = try await organizer.launch(policy: .threshold(5)) { _ in }
    let finishing = Task { await organizer.markLaunchingFinished() }
    // Let the failpoint take hold of launchingFinished (it sleeps 2 s on the store's queue).
    try await Task.sleep(for: .milliseconds(300))
    organizer.stopRequested()
    let record = try XCTUnwrap(try launches.state()?.launchesInProgress.first)
    XCTAssertNotNil(record.stopRequestDate, "recorded while launchingFinished is still held")
    await finishing.value
  }
}
