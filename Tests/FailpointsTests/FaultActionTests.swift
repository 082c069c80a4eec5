import Foundation
import TestSupport
import XCTest

/// Every fault action, for real, in a child process: the parent must see the genuine signal.
final class FaultActionTests: XCTestCase {
  func testEachFaultProducesItsSignal() {
    let expectations: [(String, Termination)] = [
      ("segv", .signaled(SIGSEGV)), ("bus", .signaled(SIGBUS)), ("fpe", .signaled(SIGFPE)),
      ("abort", .signaled(SIGABRT)), ("trap", .signaled(SIGTRAP)), ("fatal", .signaled(SIGILL)),
      ("unwrap", .signaled(SIGILL)), ("overflow", .signaled(SIGILL)), ("oob", .signaled(SIGILL)),
      ("stackoverflow", .signaled(SIGSEGV)), ("smash", .signaled(SIGSEGV)), ("kill", .signaled(SIGKILL)),
      ("exit(7)", .exited(7)),
      ("thread(segv)", .signaled(SIGSEGV)), ("thread(fatal)", .signaled(SIGILL)),
      ("thread(stackoverflow)", .signaled(SIGSEGV)), ("sleep(1)", .exited(0)), ("off", .exited(0)),
    ]
    let directory = TemporaryDirectory()
    for (action, expected) in expectations {
      let termination = ChildProcess.run(
        ChildProcess.product("chaos-target"),
        environment: [
          "CHAOS_STATE_DIR": directory.file("state-\(action)"), "CHAOS_FAILPOINTS": "task.network=\(action)",
          "CHAOS_EVENTS": directory.file("events-\(action).ndjson"),
        ],
        timeout: 20)
      XCTAssertEqual(termination, expected, "task.network=\(action)")
    }
  }

  /// `oom` outside a memory cgroup: it allocates and touches its bound, then says no limit
  /// stopped it and exits 1, rather than taking the machine (the OOM kill itself, under runc
  /// with a memory limit, is Scenarios/containers/runc-oom-kill-during-launch-is-counted.yaml).
  func testOOMWithoutALimitStopsAtItsBound() throws {
    let directory = TemporaryDirectory()
    let termination = ChildProcess.run(
      ChildProcess.product("chaos-target"),
      environment: [
        "CHAOS_STATE_DIR": directory.file("state"), "CHAOS_FAILPOINTS": "task.network=oom(32)",
        "CHAOS_EVENTS": directory.file("events.ndjson"),
      ],
      timeout: 20)
    XCTAssertEqual(termination, .exited(1))
  }
}
