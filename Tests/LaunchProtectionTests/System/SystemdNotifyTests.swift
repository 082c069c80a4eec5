import Failpoints
import Foundation
import Synchronization
import TestSupport
import XCTest

@testable import LaunchProtection

/// The notify datagram reaches a real socket, both forms systemd uses for `NOTIFY_SOCKET`.
final class SystemdNotifyTests: XCTestCase {
  func receive(on address: String, _ message: String) throws -> String? {
    let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
    defer { close(fd) }
    let bound = try XCTUnwrap(UnixSocketAddress(address)).withSockaddr { bind(fd, $0, $1) }
    XCTAssertEqual(bound, 0, String(cString: strerror(errno)))
    XCTAssertTrue(SystemdNotify.send(message, to: address))
    var buffer = [UInt8](repeating: 0, count: 512)
    let count = recv(fd, &buffer, buffer.count, Int32(MSG_DONTWAIT))
    return count > 0 ? String(decoding: buffer[0..<count], as: UTF8.self) : nil
  }

  func testPathSocket() throws {
    let directory = TemporaryDirectory("notify")
    XCTAssertEqual(try receive(on: directory.file("notify.sock"), "READY=1\nSTATUS=running"), "READY=1\nSTATUS=running")
  }

  func testAbstractSocket() throws {
    XCTAssertEqual(try receive(on: "@launchchaos-test-\(getpid())", "WATCHDOG=1"), "WATCHDOG=1")
  }

  func testNothingListeningIsAFailureNotACrash() {
    XCTAssertFalse(SystemdNotify.send("READY=1", to: "@launchchaos-nobody-\(getpid())"))
  }

  func testKeepAliveWithoutAWatchdogSendsNothingAndSaysSo() {
    XCTAssertNil(ProcessInfo.processInfo.environment["WATCHDOG_USEC"], "the test runs without a watchdog")
    XCTAssertNil(SystemdNotify.watchdogInterval)
    XCTAssertFalse(SystemdNotify.keepAlive())
  }

  func testANotifySocketPathTooLongForAnAddressIsNotSent() {
    let long = "/tmp/" + String(repeating: "n", count: 200)
    XCTAssertFalse(SystemdNotify.send("READY=1", to: long))
    XCTAssertFalse(SystemdNotify.send("READY=1", to: "@" + String(repeating: "n", count: 200)))
  }

  func testSendWithoutANotifySocketIsFalse() {
    XCTAssertNil(ProcessInfo.processInfo.environment["NOTIFY_SOCKET"], "the test runs outside systemd")
    XCTAssertFalse(SystemdNotify.isAvailable)
    XCTAssertFalse(SystemdNotify.send("READY=1"))
  }

  /// `sun_path` holds 108 bytes with its terminating zero: 107 fit, 108 do not.
  func testASocketNameFitsSunPathWithItsTerminator() {
    XCTAssertNotNil(UnixSocketAddress("/" + String(repeating: "s", count: 106)))
    XCTAssertNil(UnixSocketAddress("/" + String(repeating: "s", count: 107)))
    XCTAssertNil(UnixSocketAddress(""))
  }

  /// `WATCHDOG_PID` names the process the watchdog is for; another pid's watchdog is not ours.
  func testTheWatchdogIsOnlyForThePidItNames() {
    defer {
      unsetenv("WATCHDOG_USEC")
      unsetenv("WATCHDOG_PID")
    }
    setenv("WATCHDOG_USEC", "0", 1)
    XCTAssertNil(SystemdNotify.watchdogInterval, "an interval of 0 is no watchdog")
    setenv("WATCHDOG_USEC", "200000", 1)
    XCTAssertEqual(SystemdNotify.watchdogInterval, .milliseconds(200))
    setenv("WATCHDOG_PID", String(getpid()), 1)
    XCTAssertEqual(SystemdNotify.watchdogInterval, .milliseconds(200))
    setenv("WATCHDOG_PID", String(getpid() + 1), 1)
    XCTAssertNil(SystemdNotify.watchdogInterval)
  }

  func testReadyIsSentToSystemdByDefault() {
    XCTAssertTrue(LaunchOrganizer.Configuration(stateDirectory: "/nonexistent").notifyReady, "the documented default")
  }
}
