import Foundation

/// A backend hbkv waits for during its launch when `HBKV_DEPENDENCY_PORT` is set: a TCP server on
/// 127.0.0.1 (a database, say) that must accept a connection before the data is loaded. The wait
/// runs inside `ServerLaunch.waitForDependency("backend")`, so a launch that gives up (exit 1) or
/// is stopped while the backend is down is an outage, not a launch crash.
enum Backend {
  /// The backend did not accept a connection in time.
  struct Unreachable: Error, CustomStringConvertible {
    /// The port tried.
    var port: Int
    /// How long connections were tried.
    var waited: Duration
    var description: String { "backend 127.0.0.1:\(port) refused connections for \(waited), giving up" }
  }

  /// Tries a TCP connection to 127.0.0.1:`port` every 50 ms until one succeeds, or throws
  /// `Unreachable` once `giveUp` has passed.
  static func waitUntilReachable(port: Int, giveUp: Duration) async throws {
    let clock = ContinuousClock()
    let start = clock.now
    while !accepts(port: port) {
      let waited = clock.now - start
      guard waited < giveUp else { throw Unreachable(port: port, waited: waited) }
      try await Task.sleep(for: .milliseconds(50))
    }
  }

  /// Whether a TCP connection to 127.0.0.1:`port` succeeds now (it is closed at once).
  /// Loopback refuses at once when nothing listens, so the blocking connect does not linger.
  static func accepts(port: Int) -> Bool {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { return false }
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = in_port_t(UInt16(clamping: port).bigEndian)
    address.sin_addr = in_addr(s_addr: UInt32(0x7f00_0001).bigEndian)
    return withUnsafePointer(to: &address) { pointer in
      pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
      }
    }
  }
}
