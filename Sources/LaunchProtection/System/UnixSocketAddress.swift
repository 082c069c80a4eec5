#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// A Unix socket address as systemd writes one in `NOTIFY_SOCKET`: a path, or `@name` for the
/// abstract namespace (a leading NUL, no terminator counted in the length).
package struct UnixSocketAddress {
  private var storage = sockaddr_un()
  private let length: socklen_t

  /// Nil when the name does not fit in `sun_path`.
  package init?(_ name: String) {
    var bytes = Array(name.utf8)
    let abstract = bytes.first == UInt8(ascii: "@")
    if abstract { bytes[0] = 0 }
    guard !bytes.isEmpty, bytes.count < MemoryLayout.size(ofValue: storage.sun_path) else { return nil }
    storage.sun_family = sa_family_t(AF_UNIX)
    withUnsafeMutableBytes(of: &storage.sun_path) { $0.copyBytes(from: bytes) }
    length = socklen_t(MemoryLayout<sa_family_t>.size + bytes.count + (abstract ? 0 : 1))
  }

  /// Calls `body` with the address as `bind`, `connect` and `sendto` take it.
  package func withSockaddr<Result>(_ body: (UnsafePointer<sockaddr>, socklen_t) -> Result) -> Result {
    withUnsafePointer(to: storage) { pointer in
      pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, length) }
    }
  }
}
