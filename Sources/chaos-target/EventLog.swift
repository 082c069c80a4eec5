import Failpoints
import Foundation

/// Appends protocol events (NDJSON) to `CHAOS_EVENTS`, one `write(2)` per line, so a crash
/// can cut the log only between lines — never through an earlier one.
final class EventLog: Sendable {
  let fd: Int32

  init?(path: String?) {
    guard let path, !path.isEmpty else { return nil }
    let fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
    guard fd >= 0 else {
      FileHandle.standardError.write(
        Data("chaos-target: cannot open CHAOS_EVENTS \(path): \(String(cString: strerror(errno)))\n".utf8))
      return nil
    }
    self.fd = fd
  }

  /// Writes `{"event": name, "pid": …, "t": …, fields…}` as one line.
  func emit(_ name: String, _ fields: [String: Any] = [:], t: UInt64? = nil) {
    var object = fields
    object["event"] = name
    object["pid"] = Int(getpid())
    object["t"] = t ?? MonotonicNow.nanoseconds()
    guard var data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]) else { return }
    data.append(0x0A)
    data.withUnsafeBytes { bytes in
      var offset = 0
      while offset < bytes.count {
        let written = write(fd, bytes.baseAddress! + offset, bytes.count - offset)
        if written < 0 {
          if errno == EINTR { continue }
          return
        }
        offset += written
      }
    }
  }
}

enum MonotonicNow {
  static func nanoseconds() -> UInt64 { MonotonicClock.nanoseconds() }
}
