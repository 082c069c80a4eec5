import Foundation
import TestSupport
import XCTest

@testable import LaunchProtection

/// The notify datagram reaches a real socket, both forms systemd uses for `NOTIFY_SOCKET`.
final class SystemdNotifyTests: XCTestCase {
  func receive(on address: String, _ message: String) throws -> String? {
    let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
    defer { close(fd) }
    var socketAddress = sockaddr_un()
    socketAddress.sun_family = sa_family_t(AF_UNIX)
    var bytes = Array(address.utf8)
    if bytes.first == UInt8(ascii: "@") { bytes[0] = 0 }
    withUnsafeMutableBytes(of: &socketAddress.sun_path) { $0.copyBytes(from: bytes) }
    let length = socklen_t(MemoryLayout<sa_family_t>.size + bytes.count + (bytes.first == 0 ? 0 : 1))
    let bound = withUnsafePointer(to: &socketAddress) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
    }
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
