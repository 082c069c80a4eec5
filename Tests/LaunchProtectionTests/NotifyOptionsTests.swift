import Foundation
import LaunchProtection
import TestSupport
import XCTest

/// The systemd switches of `Configuration`, seen by a real notify socket around the reference
/// app: `notifyReady = false` sends no `READY=1`; `repairTimeExtension` is what
/// `EXTEND_TIMEOUT_USEC` announces when no deadline is set.
final class NotifyOptionsTests: XCTestCase {
  /// Every datagram the app sent to `NOTIFY_SOCKET` during one launch, and how it ended.
  private func messages(
    _ runs: ReferenceAppRuns, app: String, failpoints: String = ""
  ) -> (Termination?, [String]) {
    let path = runs.directory.file("notify.sock")
    unlink(path)
    let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
    defer { close(fd) }
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    withUnsafeMutableBytes(of: &address.sun_path) { buffer in
      for (index, byte) in path.utf8.enumerated() { buffer[index] = byte }
    }
    let bound = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
    }
    XCTAssertEqual(bound, 0, String(cString: strerror(errno)))
    let ended = runs.run(app: app, failpoints: failpoints, notifySocket: path)
    var received: [String] = []
    var buffer = [UInt8](repeating: 0, count: 4096)
    while case let count = recv(fd, &buffer, buffer.count, Int32(MSG_DONTWAIT)), count > 0 {
      received.append(String(decoding: buffer[0..<count], as: UTF8.self))
    }
    return (ended, received)
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
}
