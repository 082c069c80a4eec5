import Failpoints
import Foundation

/// A tiny HTTP/1.1 client over a POSIX socket, for `requests:` steps: one request per
/// connection (`Connection: close`) to 127.0.0.1, the whole exchange under one deadline; the
/// body is read by `Content-Length`, chunked transfer coding, or to the end of the stream.
enum HTTPProbe {
  /// A response.
  struct Response: Equatable {
    var status: Int
    var reason: String
    var headers: [(name: String, value: String)]
    var body: Data

    static func == (lhs: Response, rhs: Response) -> Bool {
      lhs.status == rhs.status && lhs.body == rhs.body && lhs.reason == rhs.reason
        && lhs.headers.map { "\($0.name): \($0.value)" } == rhs.headers.map { "\($0.name): \($0.value)" }
    }

    /// The first value of a header (case-insensitive name).
    func header(_ name: String) -> String? {
      headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }
  }

  /// Why no response came.
  enum Failure: Error, Equatable, CustomStringConvertible {
    /// Nothing listens on the port (ECONNREFUSED).
    case refused
    /// A socket call failed.
    case system(String, Int32)
    /// The deadline passed (while connecting, sending or reading).
    case timedOut(String)
    /// The peer closed before a complete response, or sent something that is not HTTP/1.x.
    case malformed(String)

    /// Worth another attempt under `retry_for`: the server may not be listening yet.
    var isConnectionFailure: Bool {
      switch self {
      case .refused, .system: true
      case .timedOut(let phase): phase == "connecting"
      case .malformed: false
      }
    }

    var description: String {
      switch self {
      case .refused: "connection refused"
      case .system(let call, let code): "\(call): \(String(cString: strerror(code)))"
      case .timedOut(let phase): "timed out \(phase)"
      case .malformed(let detail): "bad response: \(detail)"
      }
    }
  }

  /// The request bytes.
  static func requestData(
    method: String, path: String, port: Int, headers: [String: String], body: String?
  ) -> Data {
    var lines = ["\(method) \(path) HTTP/1.1", "Host: 127.0.0.1:\(port)"]
    let lowered = Set(headers.keys.map { $0.lowercased() })
    if !lowered.contains("user-agent") { lines.append("User-Agent: chaos") }
    if !lowered.contains("accept") { lines.append("Accept: */*") }
    for (name, value) in headers.sorted(by: { $0.key < $1.key }) { lines.append("\(name): \(value)") }
    if let body, !lowered.contains("content-length") { lines.append("Content-Length: \(body.utf8.count)") }
    lines.append("Connection: close")
    var data = Data((lines.joined(separator: "\r\n") + "\r\n\r\n").utf8)
    if let body { data.append(contentsOf: Array(body.utf8)) }
    return data
  }

  /// Sends one request to 127.0.0.1:`port` and reads the response, all within `timeout` seconds.
  static func fetch(
    method: String, path: String, port: Int, headers: [String: String] = [:], body: String? = nil,
    timeout: Double
  ) -> Result<Response, Failure> {
    let deadline = MonotonicClock.nanoseconds() + UInt64(max(0.001, timeout) * 1e9)
    let fd = socket(
      AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    guard fd >= 0 else { return .failure(.system("socket", errno)) }
    defer { close(fd) }
    var address = LoopbackAddress(port: port)
    let connected = address.withSocketAddress { connect(fd, $0, $1.pointee) }
    if connected != 0 {
      guard errno == EINPROGRESS else { return .failure(errno == ECONNREFUSED ? .refused : .system("connect", errno)) }
      guard wait(fd, for: Int16(POLLOUT), until: deadline) else { return .failure(.timedOut("connecting")) }
      var error: Int32 = 0
      var length = socklen_t(MemoryLayout<Int32>.size)
      getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length)
      if error != 0 { return .failure(error == ECONNREFUSED ? .refused : .system("connect", error)) }
    }
    let request = [UInt8](requestData(method: method, path: path, port: port, headers: headers, body: body))
    var sent = 0
    while sent < request.count {
      let count = request[sent...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
      if count > 0 {
        sent += count
      } else if count < 0 && (errno == EAGAIN || errno == EINTR) {
        guard wait(fd, for: Int16(POLLOUT), until: deadline) else { return .failure(.timedOut("sending the request")) }
      } else {
        return .failure(.system("send", errno))
      }
    }
    var received = Data()
    var buffer = [UInt8](repeating: 0, count: 16 * 1024)
    while true {
      if let complete = try? parse(received, method: method, atEnd: false) { return .success(complete) }
      let count = recv(fd, &buffer, buffer.count, 0)
      if count > 0 {
        received.append(contentsOf: buffer[0..<count])
      } else if count == 0 {
        do {
          guard let response = try parse(received, method: method, atEnd: true) else {
            return .failure(.malformed(received.isEmpty ? "connection closed without a response" : "truncated"))
          }
          return .success(response)
        } catch {
          return .failure(error)
        }
      } else if errno == EAGAIN || errno == EINTR {
        guard wait(fd, for: Int16(POLLIN), until: deadline) else {
          return .failure(.timedOut(received.isEmpty ? "waiting for the response" : "reading the response"))
        }
      } else if errno == ECONNRESET, let response = try? parse(received, method: method, atEnd: true) {
        return .success(response)
      } else {
        return .failure(.system("recv", errno))
      }
    }
  }

  private static func wait(_ fd: Int32, for events: Int16, until deadline: UInt64) -> Bool {
    while true {
      let now = MonotonicClock.nanoseconds()
      guard now < deadline else { return false }
      var entry = pollfd(fd: fd, events: events, revents: 0)
      let ready = poll(&entry, 1, Int32(min(1_000, (deadline - now) / 1_000_000 + 1)))
      if ready > 0 { return true }
      if ready < 0 && errno != EINTR { return true }  // the next call reports the error
    }
  }

  /// A complete response from the bytes so far, nil when more are needed. `atEnd`: the peer
  /// closed, so a body without length ends here.
  static func parse(_ data: Data, method: String, atEnd: Bool) throws(Failure) -> Response? {
    let bytes = [UInt8](data)
    guard let headEnd = find([13, 10, 13, 10], in: bytes, from: 0) else {
      if atEnd { throw .malformed(bytes.isEmpty ? "connection closed without a response" : "truncated headers") }
      return nil
    }
    let head = String(decoding: bytes[0..<headEnd], as: UTF8.self)
    var lines = head.components(separatedBy: "\r\n")
    let statusLine = lines.removeFirst()
    let parts = statusLine.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false)
    guard parts.count >= 2, parts[0].hasPrefix("HTTP/1."), let status = Int(parts[1]), (100...599).contains(status)
    else { throw .malformed("status line '\(statusLine.prefix(80))'") }
    let headers = lines.compactMap { line -> (name: String, value: String)? in
      guard let colon = line.firstIndex(of: ":") else { return nil }
      return (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
    }
    var response = Response(
      status: status, reason: parts.count > 2 ? String(parts[2]) : "", headers: headers, body: Data())
    // 1xx (e.g. 100 Continue): skip to the final response.
    if (100..<200).contains(status) {
      return try parse(Data(bytes[(headEnd + 4)...]), method: method, atEnd: atEnd)
    }
    let rest = Array(bytes[(headEnd + 4)...])
    if method == "HEAD" || status == 204 || status == 304 { return response }
    if response.header("Transfer-Encoding")?.lowercased().contains("chunked") == true {
      guard let body = try dechunk(rest) else {
        if atEnd { throw .malformed("truncated chunked body") }
        return nil
      }
      response.body = body
      return response
    }
    if let text = response.header("Content-Length") {
      guard let length = Int(text), length >= 0 else { throw .malformed("Content-Length '\(text)'") }
      guard rest.count >= length else {
        if atEnd { throw .malformed("body truncated at \(rest.count) of \(length) bytes") }
        return nil
      }
      response.body = Data(rest[0..<length])
      return response
    }
    guard atEnd else { return nil }
    response.body = Data(rest)
    return response
  }

  /// The decoded body, nil while incomplete.
  private static func dechunk(_ bytes: [UInt8]) throws(Failure) -> Data? {
    var body = Data()
    var cursor = 0
    while true {
      guard let lineEnd = find([13, 10], in: bytes, from: cursor) else { return nil }
      let sizeText =
        String(decoding: bytes[cursor..<lineEnd], as: UTF8.self)
        .split(separator: ";", maxSplits: 1).first.map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
      guard let size = Int(sizeText, radix: 16), size >= 0 else { throw .malformed("chunk size '\(sizeText)'") }
      cursor = lineEnd + 2
      if size == 0 {
        // Trailers end with an empty line.
        return find([13, 10, 13, 10], in: bytes, from: lineEnd) != nil ? body : nil
      }
      guard bytes.count >= cursor + size + 2 else { return nil }
      body.append(contentsOf: bytes[cursor..<(cursor + size)])
      cursor += size + 2
    }
  }

  private static func find(_ needle: [UInt8], in bytes: [UInt8], from start: Int) -> Int? {
    guard bytes.count >= needle.count, start <= bytes.count - needle.count else { return nil }
    for index in start...(bytes.count - needle.count) where bytes[index] == needle[0] {
      if Array(bytes[index..<(index + needle.count)]) == needle { return index }
    }
    return nil
  }

  /// A free TCP port on 127.0.0.1 now (bind port 0, read it, close); nil when none.
  static func freePort() -> Int? {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    var address = LoopbackAddress(port: 0)
    let bound = address.withSocketAddress { bind(fd, $0, $1.pointee) == 0 && getsockname(fd, $0, $1) == 0 }
    guard bound else { return nil }
    return address.port
  }
}
