import Foundation

/// A TCP address on 127.0.0.1, where every socket of the harness lives (HTTP requests, free
/// ports, the scenario's dependency), in the form the socket calls take.
package struct LoopbackAddress {
  private var address = sockaddr_in()
  private var length = socklen_t(MemoryLayout<sockaddr_in>.size)

  /// 127.0.0.1:`port` (0: any free port, for `bind`).
  package init(port: Int) {
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = in_port_t(UInt16(port).bigEndian)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
  }

  /// The port, as given or as `getsockname` wrote it.
  package var port: Int { Int(UInt16(bigEndian: address.sin_port)) }

  /// Calls `body` with the address as a `sockaddr` and its length, both of which a call such as
  /// `getsockname` may write.
  package mutating func withSocketAddress<T>(
    _ body: (UnsafeMutablePointer<sockaddr>, UnsafeMutablePointer<socklen_t>) -> T
  ) -> T {
    withUnsafeMutablePointer(to: &length) { length in
      withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, length) }
      }
    }
  }
}
