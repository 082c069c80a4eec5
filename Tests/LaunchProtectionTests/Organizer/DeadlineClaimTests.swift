import Foundation
import LaunchProtection
import TestSupport
import XCTest

/// The launch deadline's claim on the launch, in real processes. Once the deadline fired, the
/// launch is hung: whatever it does in the window before the abort (the launch finishes, the
/// process exits, a stop is requested) must not un-claim it, and the next launch counts it.
/// The launch runs on a Dispatch worker, which blocks SIGABRT, so the window lasts the
/// deadline's half second of grace before `abort()`. And a deadline never fires after
/// `launchingFinished()`.
final class DeadlineClaimTests: XCTestCase {
  /// A launch that outlives its 300 ms deadline by a little: its last task sleeps 450 ms (less
  /// when the thread dump's signal wakes it), then the launch ends in the window.
  private func hungApp(_ extra: String = "") -> String {
    #"{"threshold": 100, "launch_on": "dispatch", "launch_deadline_ms": 300, "#
      + #""task_overrides": {"ui": {"sleep_ms": 450}}"# + extra + "}"
  }

  private let plainApp = #"{"threshold": 100}"#

  func testLaunchingFinishedAfterTheDeadlineFiredDoesNotUnclaimTheLaunch() throws {
    let runs = ReferenceAppRuns()
    XCTAssertEqual(runs.run(app: hungApp()), .signaled(SIGABRT))
    XCTAssertEqual(runs.named("launch_hang").count, 1)
    XCTAssertEqual(runs.named("launching_finished").count, 0, "launchingFinished() came too late: \(runs.all())")
    let state = try XCTUnwrap(try runs.state())
    XCTAssertEqual(state.launchesInProgress.count, 1, "the sentinel stays")
    XCTAssertEqual(state.lastCrashCause?.type, "launch-hang")
    XCTAssertEqual(state.lastCrashCause?.afterLaunch, false, "a hang is a death during the launch")
    XCTAssertEqual(runs.run(app: plainApp), .exited(0))
    XCTAssertEqual(runs.lastCount, 1, "the hung launch counts")
  }

  func testAnExitAfterTheDeadlineFiredIsNotACleanExit() throws {
    let runs = ReferenceAppRuns()
    // The launch returns unfinished and the app exits 0 in the window.
    XCTAssertEqual(runs.run(app: hungApp(#", "launching_finished": false"#)), .signaled(SIGABRT))
    XCTAssertEqual(runs.named("uncounted_exit").count, 0, "\(runs.all())")
    XCTAssertNil(try runs.state()?.lastUncountedExit)
    XCTAssertEqual(runs.run(app: plainApp), .exited(0))
    XCTAssertEqual(runs.lastCount, 1, "the hung launch counts")
  }

  func testAStopAfterTheDeadlineFiredIsNotRecorded() throws {
    let runs = ReferenceAppRuns()
    let pid = runs.spawn(app: hungApp(#", "launching_finished": false"#))
    XCTAssertTrue(EventsFile.waitFor("launch_hang", in: runs.events), "the deadline fired")
    kill(pid, SIGTERM)
    let ended = ChildProcess.wait(pid, timeout: 10)
    XCTAssertTrue([.signaled(SIGABRT), .signaled(SIGTERM)].contains(ended), "\(String(describing: ended))")
    XCTAssertEqual(runs.named("stop_requested").count, 0, "\(runs.all())")
    XCTAssertNil(try runs.state()?.launchesInProgress.first?.stopRequestDate)
    XCTAssertEqual(runs.run(app: plainApp), .exited(0))
    XCTAssertEqual(runs.lastCount, 1, "the hung launch counts: it was not a clean shutdown")
  }

  func testADeadlineNeverFiresAfterLaunchingFinished() throws {
    let runs = ReferenceAppRuns()
    // A deadline the launch meets even on a loaded machine, then one and a half of it up.
    let pid = runs.spawn(app: #"{"threshold": 100, "launch_deadline_ms": 1000, "stay_up": true}"#)
    XCTAssertTrue(EventsFile.waitFor("launching_finished", in: runs.events))
    usleep(1_500_000)
    kill(pid, SIGTERM)
    XCTAssertEqual(ChildProcess.wait(pid, timeout: 10), .exited(0))
    XCTAssertEqual(runs.named("launch_hang").count, 0)
    XCTAssertNil(try runs.state()?.lastCrashCause)
    XCTAssertEqual(try runs.state()?.launchesInProgress, [])
  }
}
