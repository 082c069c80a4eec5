import Failpoints
import Foundation
import Synchronization
import XCTest

@testable import LaunchProtection

/// The launch deadline's timer: one watcher thread however often it is armed, and a clock that
/// pauses while the launch waits for a dependency.
final class LaunchDeadlineTests: XCTestCase {
  /// One watcher thread per deadline, however often it is re-armed.
  func testARearmedDeadlineKeepsOneWatcherThread() {
    func watchers() -> Int {
      let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
      return tasks.filter {
        (try? String(contentsOfFile: "/proc/self/task/\($0)/comm", encoding: .utf8))?.hasPrefix("launch-deadline")
          == true
      }.count
    }
    let before = watchers()
    let deadline = LaunchDeadline(duration: .seconds(60))
    for phase in [LaunchPhase.launching, .protecting, .relaunching] {
      deadline.arm(phase, thread: nil) { _, _ in }
    }
    usleep(50_000)
    XCTAssertEqual(watchers() - before, 1)
    deadline.disarm()
  }

  /// The deadline's clock stops while the launch waits: the time waited is not charged, and the
  /// budget left is kept (margins of a second, for a loaded machine).
  func testThePausedDeadlineKeepsTheBudgetItHadLeft() throws {
    let deadline = LaunchDeadline(duration: .milliseconds(2000))
    let fired = Mutex<[UInt64]>([])
    let armedAt = DispatchTime.now().uptimeNanoseconds
    deadline.arm(.launching, thread: nil) { _, _ in fired.withLock { $0.append(DispatchTime.now().uptimeNanoseconds) } }
    usleep(1_500_000)
    deadline.pause()
    usleep(2_500_000)  // longer than the whole deadline, paused
    XCTAssertEqual(fired.withLock { $0 }, [], "a paused deadline never fires")
    let resumedAt = DispatchTime.now().uptimeNanoseconds
    deadline.resume()
    let until = Date().addingTimeInterval(10)
    while fired.withLock({ $0.isEmpty }) && Date() < until { usleep(10_000) }
    let firedAt = try XCTUnwrap(fired.withLock { $0.first }, "fires once resumed")
    // About 500 ms of budget was left; 2 s would mean the pause started the clock anew.
    XCTAssertLessThan(firedAt - resumedAt, 1_500_000_000, "the budget left, not a new deadline")
    XCTAssertGreaterThan(firedAt - armedAt, 3_900_000_000, "the paused time was not charged")
    deadline.disarm()
  }

  func testAPhaseArmedWhilePausedWaitsForTheResume() throws {
    let deadline = LaunchDeadline(duration: .milliseconds(100))
    let fired = Mutex(0)
    deadline.pause()
    deadline.arm(.relaunching, thread: nil) { _, _ in fired.withLock { $0 += 1 } }
    usleep(300_000)
    XCTAssertEqual(fired.withLock { $0 }, 0)
    deadline.resume()
    let until = Date().addingTimeInterval(10)
    while fired.withLock({ $0 == 0 }) && Date() < until { usleep(10_000) }
    XCTAssertEqual(fired.withLock { $0 }, 1, "the phase's deadline runs from the resume")
  }
}
