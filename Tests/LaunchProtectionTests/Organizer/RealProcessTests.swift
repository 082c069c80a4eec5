import Foundation
import LaunchProtection
import Synchronization
import TestSupport
import XCTest

/// Real launches of the reference app in child processes, ended by real signals.
final class RealProcessTests: XCTestCase {
  let target = ChildProcess.product("chaos-target")

  private func run(_ directory: TemporaryDirectory, failpoints: String = "", app: String = "{\"threshold\": 1000}")
    -> Termination?
  {
    ChildProcess.run(
      target,
      environment: [
        "CHAOS_STATE_DIR": directory.file("state"), "CHAOS_EVENTS": directory.file("events.ndjson"),
        "CHAOS_FAILPOINTS": failpoints, "CHAOS_APP": app,
      ])
  }

  private func lastLaunchCount(_ directory: TemporaryDirectory) -> Int? {
    EventsFile.read(directory.file("events.ndjson")).last { $0["event"] as? String == "launch" }?["count"] as? Int
  }

  private func state(_ directory: TemporaryDirectory) throws -> LaunchState? {
    try StateStore(directory: directory.file("state")).read()
  }

  func testSIGKILLBetweenSentinelAndLaunchingFinishedCountsOnTheNextLaunch() throws {
    let directory = TemporaryDirectory()
    XCTAssertEqual(run(directory, failpoints: "launch.begin=kill"), .signaled(SIGKILL))
    XCTAssertEqual(try state(directory)?.launchesInProgress.count, 1, "the sentinel was durable before the kill")
    XCTAssertEqual(run(directory), .exited(0))
    XCTAssertEqual(lastLaunchCount(directory), 1)
    XCTAssertEqual(run(directory), .exited(0))
    XCTAssertEqual(lastLaunchCount(directory), 0, "the clean launch reset the count")
  }

  func testRealCrashSignalCounts() throws {
    let directory = TemporaryDirectory()
    XCTAssertEqual(run(directory, failpoints: "task.network=segv"), .signaled(SIGSEGV))
    XCTAssertEqual(run(directory, failpoints: "task.auth=fatal"), .signaled(SIGILL))
    XCTAssertEqual(run(directory), .exited(0))
    XCTAssertEqual(lastLaunchCount(directory), 2)
  }

  func testCleanExitDuringLaunchIsNotCountedButAFailingExitIs() throws {
    let directory = TemporaryDirectory()
    XCTAssertEqual(run(directory, failpoints: "task.database=exit(0)"), .exited(0))
    XCTAssertEqual(try state(directory)?.lastUncountedExit?.reason, .cleanExit)
    XCTAssertEqual(try state(directory)?.launchesInProgress, [])
    XCTAssertEqual(run(directory, failpoints: "task.database=exit(3)"), .exited(3))
    XCTAssertEqual(lastLaunchCount(directory), 0)
    XCTAssertEqual(run(directory), .exited(0))
    XCTAssertEqual(lastLaunchCount(directory), 1, "exit(3) during launch is a launch crash")
  }

  func testSIGTERMDuringLaunchIsACleanShutdown() throws {
    let directory = TemporaryDirectory()
    let events = directory.file("events.ndjson")
    let pid = ChildProcess.spawn(
      target,
      environment: [
        "CHAOS_STATE_DIR": directory.file("state"), "CHAOS_EVENTS": events,
        "CHAOS_FAILPOINTS": "task.network=hang", "CHAOS_APP": "{}",
      ])
    XCTAssertTrue(EventsFile.waitFor("failpoint", in: events), "the target reached the hanging task")
    kill(pid, SIGTERM)
    XCTAssertEqual(ChildProcess.wait(pid, timeout: 10), .signaled(SIGTERM), "the parent still sees SIGTERM")
    XCTAssertEqual(run(directory), .exited(0))
    XCTAssertEqual(lastLaunchCount(directory), 0)
    let launch = EventsFile.read(events).last { $0["event"] as? String == "launch" }
    let ignored = launch?["ignored"] as? [[String: Any]]
    XCTAssertEqual(ignored?.first?["reason"] as? String, "terminated")
  }

  func testTwoHundredRacingLaunchesLoseNoIncrement() throws {
    let directory = TemporaryDirectory()
    let launches = 200
    let concurrency = 8
    let failures = Mutex(0)
    let target = self.target
    let environment = [
      "CHAOS_STATE_DIR": directory.file("state"), "CHAOS_EVENTS": directory.file("events.ndjson"),
      "CHAOS_FAILPOINTS": "launch.begin=kill", "CHAOS_APP": "{}",
    ]
    DispatchQueue.concurrentPerform(iterations: concurrency) { _ in
      for _ in 0..<(launches / concurrency) {
        if ChildProcess.run(target, environment: environment) != .signaled(SIGKILL) { failures.withLock { $0 += 1 } }
      }
    }
    XCTAssertEqual(failures.withLock { $0 }, 0, "every racing launch must die by SIGKILL")
    XCTAssertEqual(run(directory, app: "{\"threshold\": 1000, \"launching_finished\": false}"), .exited(0))
    XCTAssertEqual(lastLaunchCount(directory), launches, "each of \(launches) killed launches counted exactly once")
  }
}
