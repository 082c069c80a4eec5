import Foundation

/// A bound datagram socket standing in for systemd's `NOTIFY_SOCKET`.
final class NotifySocket {
  let path: String
  private let fd: Int32

  init(path: String) {
    self.path = path
    unlink(path)
    fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    withUnsafeMutableBytes(of: &address.sun_path) { buffer in
      for (index, byte) in path.utf8.enumerated() { buffer[index] = byte }
    }
    let bound = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
    }
    precondition(bound == 0, "bind \(path): \(String(cString: strerror(errno)))")
  }

  deinit { close(fd) }

  /// Every datagram received so far, in order.
  func drain() -> [String] {
    var received: [String] = []
    var buffer = [UInt8](repeating: 0, count: 4096)
    while case let count = recv(fd, &buffer, buffer.count, Int32(MSG_DONTWAIT)), count > 0 {
      received.append(String(decoding: buffer[0..<count], as: UTF8.self))
    }
    return received
  }
}
