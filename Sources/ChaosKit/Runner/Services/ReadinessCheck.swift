import Failpoints
import Foundation

/// How the harness knows a service is ready: an HTTP GET that answers 2xx, or a TCP connect
/// that succeeds, on 127.0.0.1 (`ready: http://127.0.0.1:9090/-/ready`, `tcp://127.0.0.1:5432`).
package enum ReadinessCheck: Sendable, Equatable, CustomStringConvertible {
  /// GET `path` on 127.0.0.1:`port` answers a 2xx status.
  case http(port: Int, path: String)
  /// A connect to 127.0.0.1:`port` succeeds.
  case tcp(port: Int)

  package var description: String {
    switch self {
    case .http(let port, let path): "http://127.0.0.1:\(port)\(path)"
    case .tcp(let port): "tcp://127.0.0.1:\(port)"
    }
  }

  /// The port checked.
  package var port: Int {
    switch self {
    case .http(let port, _), .tcp(let port): port
    }
  }

  /// Parses `http://127.0.0.1:PORT/path` or `tcp://127.0.0.1:PORT` (`localhost` too); the
  /// error says what is wrong. Only loopback: a service the harness starts is local.
  package static func parse(_ text: String) -> Result<ReadinessCheck, Failure> {
    let scheme: String
    if text.hasPrefix("http://") {
      scheme = "http"
    } else if text.hasPrefix("tcp://") {
      scheme = "tcp"
    } else {
      return .failure(Failure("'\(text)' is not http://127.0.0.1:PORT/path or tcp://127.0.0.1:PORT"))
    }
    let rest = text.dropFirst(scheme.count + 3)
    let authority = rest.prefix { $0 != "/" }
    let path = rest.dropFirst(authority.count)
    let parts = authority.split(separator: ":", omittingEmptySubsequences: false)
    guard parts.count == 2, parts[0] == "127.0.0.1" || parts[0] == "localhost" else {
      return .failure(Failure("'\(text)': the host must be 127.0.0.1 or localhost, with a port"))
    }
    guard let port = Int(parts[1]), (1...65535).contains(port) else {
      return .failure(Failure("'\(text)': '\(parts[1])' is not a port (1-65535)"))
    }
    if scheme == "tcp" {
      guard path.isEmpty else { return .failure(Failure("'\(text)': a tcp:// check has no path")) }
      return .success(.tcp(port: port))
    }
    return .success(.http(port: port, path: path.isEmpty ? "/" : String(path)))
  }

  /// Why a check is malformed or failed.
  package struct Failure: Error, CustomStringConvertible, Equatable {
    package var description: String
    init(_ description: String) { self.description = description }
  }

  /// One attempt: nil when ready, else why not.
  package func probe(timeout: Double = 1) -> String? {
    switch self {
    case .http(let port, let path):
      switch HTTPProbe.fetch(method: "GET", path: path, port: port, timeout: timeout) {
      case .success(let response):
        return (200..<300).contains(response.status) ? nil : "answered \(response.status)"
      case .failure(let failure): return "\(failure)"
      }
    case .tcp(let port):
      return Self.connect(port: port, timeout: timeout)
    }
  }

  /// A blocking connect to 127.0.0.1:`port` with a send/receive timeout; nil when it succeeded.
  private static func connect(port: Int, timeout: Double) -> String? {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    guard fd >= 0 else { return "socket: \(String(cString: strerror(errno)))" }
    defer { close(fd) }
    var limit = timeval(tv_sec: Int(timeout), tv_usec: Int((timeout - timeout.rounded(.down)) * 1e6))
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
    var address = LoopbackAddress(port: port)
    let connected = address.withSocketAddress { Glibc.connect(fd, $0, $1.pointee) == 0 }
    return connected ? nil : "connect: \(String(cString: strerror(errno)))"
  }
}
