import Foundation
import LaunchProtection
import TestSupport
import XCTest

/// The systemd switches of `Configuration`, seen by a real notify socket around the reference
/// app: `notifyReady = false` sends no `READY=1`; `repairTimeExtension` is what
/// `EXTEND_TIMEOUT_USEC` announces when no deadline is set; `keepAlive()` sends `WATCHDOG=1`
/// only when systemd's watchdog is on.
final class NotifyOptionsTests: XCTestCase {
  /// Every datagram the app sent to `NOTIFY_SOCKET` during one launch, and how it ended.
  private func messages(
    _ runs: ReferenceAppRuns, app: String, failpoints: String = ""
  ) -> (Termination?, [String]) {
    let socket = NotifySocket(path: runs.directory.file("notify.sock"))
    let ended = runs.run(app: app, failpoints: failpoints, extra: ["NOTIFY_SOCKET": socket.path])
    return (ended, socket.drain())
  }

  func testNotifyReadyFalseSendsNoReady() throws {
    let runs = ReferenceAppRuns()
    let (ended, ready) = messages(runs, app: #"{"threshold": 100}"#)
    XCTAssertEqual(ended, .exited(0))
    XCTAssertEqual(ready.filter { $0.contains("READY=1") }.count, 1, "the default: \(ready)")
    let (quietEnd, quiet) = messages(runs, app: #"{"threshold": 100, "notify_ready": false}"#)
    XCTAssertEqual(quietEnd, .exited(0))
    XCTAssertEqual(runs.named("launching_finished").count, 2, "both launches finished")
    XCTAssertEqual(quiet.filter { $0.contains("READY=1") }, [])
  }

  func testRepairTimeExtensionIsAnnouncedWhenNoDeadlineIsSet() throws {
    let runs = ReferenceAppRuns()
    let app = #"{"levels": [{"name": "clear-caches", "at": 1}], "repair_time_extension_ms": 7000}"#
    XCTAssertEqual(runs.run(app: app, failpoints: "launch.begin=kill"), .signaled(SIGKILL))
    let (ended, sent) = messages(runs, app: app)
    XCTAssertEqual(ended, .exited(0))
    let extensions = sent.flatMap { $0.split(separator: "\n") }.filter { $0.hasPrefix("EXTEND_TIMEOUT_USEC=") }
    XCTAssertEqual(
      extensions, ["EXTEND_TIMEOUT_USEC=7000000", "EXTEND_TIMEOUT_USEC=7000000"], "repair, relaunch: \(sent)")
    // With a deadline, the deadline is announced instead.
    XCTAssertEqual(runs.run(app: app, failpoints: "launch.begin=kill"), .signaled(SIGKILL))
    let timed =
      #"{"levels": [{"name": "clear-caches", "at": 1}], "repair_time_extension_ms": 7000, "launch_deadline_ms": 5000}"#
    let (_, deadlineSent) = messages(runs, app: timed)
    let announced = deadlineSent.flatMap { $0.split(separator: "\n") }.filter { $0.hasPrefix("EXTEND_TIMEOUT_USEC=") }
    XCTAssertEqual(announced, ["EXTEND_TIMEOUT_USEC=5000000", "EXTEND_TIMEOUT_USEC=5000000"], "\(deadlineSent)")
  }

  /// The app up for 400 ms after its launch, with `WATCHDOG_USEC` when given; its datagrams.
  private func keepAliveMessages(watchdogMicroseconds: Int?) -> [String] {
    let runs = ReferenceAppRuns()
    let socket = NotifySocket(path: runs.directory.file("notify.sock"))
    var extra = ["NOTIFY_SOCKET": socket.path]
    extra["WATCHDOG_USEC"] = watchdogMicroseconds.map(String.init)
    let pid = runs.spawn(app: #"{"threshold": 100, "stay_up": true}"#, extra: extra)
    XCTAssertTrue(EventsFile.waitFor("launching_finished", in: runs.events))
    usleep(400_000)
    kill(pid, SIGTERM)
    XCTAssertEqual(ChildProcess.wait(pid, timeout: 10), .exited(0))
    return socket.drain()
  }

  func testKeepAliveSendsWatchdogOnlyWhenTheWatchdogIsOn() {
    let watched = keepAliveMessages(watchdogMicroseconds: 100_000)
    XCTAssertGreaterThanOrEqual(watched.filter { $0 == "WATCHDOG=1" }.count, 3, "every 50 ms for 400 ms: \(watched)")
    let unwatched = keepAliveMessages(watchdogMicroseconds: nil)
    XCTAssertEqual(unwatched.filter { $0 == "WATCHDOG=1" }, [], "no watchdog, no keep-alive")
    XCTAssertEqual(unwatched.filter { $0.contains("READY=1") }.count, 1, "the socket did receive")
  }
}
