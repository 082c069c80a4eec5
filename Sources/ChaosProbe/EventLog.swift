import Failpoints
import Foundation

/// Appends protocol events (NDJSON) to `CHAOS_EVENTS`, one `write(2)` per line, so a crash
/// can cut the log only between lines — never through an earlier one.
final class EventLog: Sendable {
  let fd: Int32

  /// Opens (appending, creating) the events file; nil with errno set when it cannot.
  init?(path: String) {
    let fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
    guard fd >= 0 else { return nil }
    self.fd = fd
  }

  /// The `failpoint` event, formatted by hand: it is written between the fault's timestamp and
  /// the fault itself, so it must cost microseconds, not a JSONSerialization round trip.
  func emitFailpoint(name: String, action: String, t: UInt64) {
    var line = "{\"action\":" + Self.quoted(action) + ",\"event\":\"failpoint\",\"name\":" + Self.quoted(name)
    line += ",\"pid\":\(getpid()),\"t\":\(t)}\n"
    writeLine(Array(line.utf8))
  }

  static func quoted(_ text: String) -> String {
    var result = "\""
    for scalar in text.unicodeScalars {
      switch scalar {
      case "\"": result += "\\\""
      case "\\": result += "\\\\"
      case _ where scalar.value < 0x20: result += String(format: "\\u%04x", scalar.value)
      default: result.unicodeScalars.append(scalar)
      }
    }
    return result + "\""
  }

  /// Writes `{"event": name, "pid": …, "t": …, fields…}` as one line.
  func emit(_ name: String, _ fields: [String: Any] = [:], t: UInt64? = nil) {
    var object = fields
    object["event"] = name
    object["pid"] = Int(getpid())
    object["t"] = t ?? MonotonicClock.nanoseconds()
    guard var data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]) else { return }
    data.append(0x0A)
    writeLine(Array(data))
  }

  /// One write(2) per line (retrying a short write), so lines never interleave mid-way.
  private func writeLine(_ bytes: [UInt8]) {
    bytes.withUnsafeBytes { bytes in
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
