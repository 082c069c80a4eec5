import Failpoints
import LaunchProtection

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

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
  /// the fault itself, so it must cost microseconds, not a round trip through a dictionary.
  func emitFailpoint(name: String, action: String, t: UInt64) {
    var line = "{\"action\":" + Self.quoted(action) + ",\"event\":\"failpoint\",\"name\":" + Self.quoted(name)
    line += ",\"pid\":\(getpid()),\"t\":\(t)}\n"
    writeLine(Array(line.utf8))
  }

  /// `text` as a JSON string, through the project's one escaper (`/` as `\/`, as
  /// `JSONSerialization` wrote the events before).
  static func quoted(_ text: String) -> String { StateJSON.quoted(text) }

  /// Writes `{"event": name, "pid": …, "t": …, fields…}` as one line (nothing when a field
  /// value is not one `json(_:)` writes).
  func emit(_ name: String, _ fields: [String: Any] = [:], t: UInt64? = nil) {
    var object = fields
    object["event"] = name
    object["pid"] = Int(getpid())
    object["t"] = t ?? MonotonicClock.nanoseconds()
    guard let line = Self.json(object) else { return }
    writeLine(Array((line + "\n").utf8))
  }

  /// `value` as JSON text, keys sorted (as `JSONSerialization` with `.sortedKeys` wrote the
  /// events before): strings, booleans, integers, finite floating-point numbers, arrays and
  /// string-keyed dictionaries of these; nil for anything else.
  static func json(_ value: Any) -> String? {
    switch value {
    case let text as String: return quoted(text)
    case let flag as Bool: return flag ? "true" : "false"
    case let number as any BinaryInteger: return "\(number)"
    case let number as Double: return number.isFinite ? "\(number)" : nil
    case let number as Float: return number.isFinite ? "\(number)" : nil
    case let object as [String: Any]:
      var members: [String] = []
      for key in object.keys.sorted() {
        guard let member = json(object[key]!) else { return nil }
        members.append(quoted(key) + ":" + member)
      }
      return "{" + members.joined(separator: ",") + "}"
    case let array as [Any]:
      var elements: [String] = []
      for element in array {
        guard let text = json(element) else { return nil }
        elements.append(text)
      }
      return "[" + elements.joined(separator: ",") + "]"
    default:
      // `[String: any Sendable]` and `[any Sendable]` do not match the cases above.
      if let object = value as? [String: any Sendable] { return json(object as [String: Any]) }
      if let array = value as? [any Sendable] { return json(array as [Any]) }
      return nil
    }
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
