import Foundation
import LaunchProtection
import TestSupport
import XCTest

/// The launch deadline with `whenExhausted(.stayDegraded)`: it times a repair that may still
/// lead to a relaunch, never the degraded one (a maintenance mode that may last), through the
/// closure API and the async API.
final class DegradedDeadlineTests: XCTestCase {
  /// One level at 1 crash, a 300 ms deadline and a repair that takes 600 ms.
  private func app(on thread: String) -> String {
    #"{"levels": [{"name": "clear-caches", "at": 1}], "exhausted": "stay-degraded", "launch_deadline_ms": 300, "#
      + #""repair_ms": 600, "launch_on": "\#(thread)"}"#
  }

  private func checkTheDegradedRepairIsNotTimed(on thread: String) throws {
    let runs = ReferenceAppRuns()
    XCTAssertEqual(runs.run(app: app(on: thread), failpoints: "launch.begin=kill"), .signaled(SIGKILL))
    // Level 1's repair may lead to a relaunch: the deadline times it.
    XCTAssertEqual(runs.run(app: app(on: thread)), .signaled(SIGABRT))
    XCTAssertEqual(runs.named("launch_hang").map { $0["phase"] as? String }, ["repair"])
    // The levels are exhausted: the degraded repair runs past the deadline and is not timed.
    XCTAssertEqual(runs.run(app: app(on: thread)), .exited(0))
    XCTAssertEqual(runs.lastCount, 2)
    XCTAssertEqual(runs.named("protect_exhausted").last?["action"] as? String, "stay-degraded")
    XCTAssertEqual(runs.named("launch_hang").count, 1, "no deadline in degraded mode: \(runs.all())")
    XCTAssertEqual(runs.named("relaunch").count, 0)
  }

  func testTheDegradedRepairIsNotTimedOnTheClosureAPI() throws {
    try checkTheDegradedRepairIsNotTimed(on: "main")
  }

  func testTheDegradedRepairIsNotTimedOnTheAsyncAPI() throws {
    try checkTheDegradedRepairIsNotTimed(on: "async")
  }
}
