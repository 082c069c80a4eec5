import Foundation
import Synchronization

/// A Unix stream socket served by one thread; one request line → one response line.
final class Listener: Sendable {
  struct Failure: Error, CustomStringConvertible {
    var description: String
  }

  private let fd: Int32
  private let path: String

  init(path: String, handler: @escaping @Sendable (String) -> String) throws {
    unlink(path)
    let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { throw Failure(description: "socket: \(String(cString: strerror(errno)))") }
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    let capacity = MemoryLayout.size(ofValue: address.sun_path)
    guard path.utf8.count < capacity else {
      Glibc.close(fd)
      throw Failure(description: "socket path too long: \(path)")
    }
    withUnsafeMutableBytes(of: &address.sun_path) { buffer in
      buffer.copyBytes(from: path.utf8)
      buffer[path.utf8.count] = 0
    }
    let bound = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
    }
    guard bound == 0, listen(fd, 16) == 0 else {
      let reason = String(cString: strerror(errno))
      Glibc.close(fd)
      throw Failure(description: "cannot listen on \(path): \(reason)")
    }
    self.fd = fd
    self.path = path
    let thread = Thread { Listener.serve(fd, handler) }
    thread.name = "kvd-listener"
    thread.start()
  }

  func close() {
    shutdown(fd, Int32(SHUT_RDWR))
    unlink(path)
  }

  private static func serve(_ fd: Int32, _ handler: @Sendable (String) -> String) {
    while true {
      let client = accept(fd, nil, nil)
      if client < 0 {
        if errno == EINTR { continue }
        return
      }
      var buffer = [UInt8](repeating: 0, count: 4096)
      let count = read(client, &buffer, buffer.count)
      if count > 0 {
        let request = String(decoding: buffer[0..<count], as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        let response = Array((handler(request) + "\n").utf8)
        _ = response.withUnsafeBytes { write(client, $0.baseAddress, $0.count) }
      }
      Glibc.close(client)
    }
  }
}
