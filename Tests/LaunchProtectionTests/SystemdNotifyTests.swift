import Foundation
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
}
