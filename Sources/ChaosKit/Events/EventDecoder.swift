import Foundation
import LaunchProtection

/// A line of an events file that is not a valid event.
public struct EventDecodingError: Error, CustomStringConvertible, Equatable {
  /// The events file.
  public var path: String
  /// 1-based line number.
  public var line: Int
  /// What is wrong with it.
  public var cause: String
  /// 1-based column in the line (1 when the whole line is at fault, e.g. a missing field).
  public var column: Int = 1

  public var description: String { "\(path):\(line):\(column): \(cause)" }
}

/// Decodes an events file: NDJSON, one object a line, schema version `EventDecoder.schemaVersion`.
///
/// A truncated last line (the process died mid-write, so it has no newline) is tolerated and
/// reported; any other malformed line is an error naming the file, the line and the cause.
public enum EventDecoder {
  /// The newest protocol this decoder reads (it reads every earlier one too: versions only add).
  public static let schemaVersion = 2

  /// Fields each known event must carry, beyond `event`, `pid` and `t`.
  public static let requiredFields: [String: [String]] = [
    "launch": ["count", "mode"],
    "task_start": ["task"], "task_end": ["task"],
    "failpoint": ["name", "action"],
    "protect_enter": ["count", "level"],
    "life_action": ["key", "mode"],
    "crash": ["signal", "frames", "modules"],
  ]

  /// The decoded events and whether a truncated last line was dropped.
  public struct Result: Sendable {
    /// Events in file order.
    public var events: [TargetEvent]
    /// The truncated last line, if the writer died mid-line.
    public var truncatedTail: String?
  }

  /// Reads and decodes the file; a missing file is no events.
  public static func decode(path: String) throws(EventDecodingError) -> Result {
    guard let data = FileManager.default.contents(atPath: path) else { return Result(events: [], truncatedTail: nil) }
    return try decode(data, path: path)
  }

  /// Decodes file contents.
  public static func decode(_ data: Data, path: String) throws(EventDecodingError) -> Result {
    var events: [TargetEvent] = []
    var truncated: String?
    let endsWithNewline = data.last == 0x0A
    // Lines found with memchr over the bytes: `Data.split` went element by element.
    var failure: EventDecodingError?
    data.withUnsafeBytes { raw in
      let all = raw.bindMemory(to: UInt8.self)
      var start = 0
      var number = 0
      while start <= all.count, failure == nil {
        number += 1
        let rest = all.count - start
        let newline = rest > 0 ? memchr(all.baseAddress! + start, 0x0A, rest) : nil
        let end = newline.map { UnsafeRawPointer($0) - UnsafeRawPointer(all.baseAddress!) } ?? all.count
        let isLast = newline == nil
        defer { start = end + 1 }
        if end == start { continue }
        let line = Array(UnsafeBufferPointer(rebasing: all[start..<end]))
        var parsed: JSONValue?
        var syntax: StateJSON.DecodeError?
        do throws(StateJSON.DecodeError) { parsed = try JSONValue(parsing: line) } catch { syntax = error }
        guard case .object(let object)? = parsed else {
          if isLast && !endsWithNewline {
            truncated = String(decoding: line, as: UTF8.self)
            continue
          }
          failure =
            syntax.map { Self.syntaxError($0, line, path: path, number: number) }
            ?? EventDecodingError(path: path, line: number, cause: "not a JSON object: \(Self.preview(line))")
          continue
        }
        do throws(EventDecodingError) {
          var event = try validate(object, path: path, line: number)
          // A crash record is decoded again as a `CrashRecord`: from its text, not re-encoded.
          if event.name == "crash" { event.text = line }
          events.append(event)
        } catch {
          failure = error
        }
      }
    }
    if let failure { throw failure }
    return Result(events: events, truncatedTail: truncated)
  }

  /// A line that is not JSON, at the first byte that is not UTF-8, else where the parser
  /// found it wrong (its byte offset in the line, as a 1-based column) and why.
  private static func syntaxError(_ error: StateJSON.DecodeError, _ bytes: [UInt8], path: String, number: Int)
    -> EventDecodingError
  {
    if let (_, column, byte) = TextPosition.firstInvalidUTF8(bytes) {
      return EventDecodingError(
        path: path, line: number, cause: "not UTF-8: invalid byte 0x\(TextPosition.hex(byte))", column: column)
    }
    return EventDecodingError(
      path: path, line: number, cause: "not a JSON object: \(error.reason) in \(preview(bytes))",
      column: error.offset + 1)
  }

  /// The line's first 80 bytes, quoted.
  private static func preview(_ bytes: [UInt8]) -> String {
    String(decoding: bytes.prefix(80), as: UTF8.self).debugDescription
  }

  private static func validate(_ object: [String: JSONValue], path: String, line: Int) throws(EventDecodingError)
    -> TargetEvent
  {
    func fail(_ cause: String) -> EventDecodingError { EventDecodingError(path: path, line: line, cause: cause) }
    guard let name = object["event"]?.string else { throw fail("missing string field 'event'") }
    guard let pid = object["pid"]?.int else { throw fail("'\(name)' event: missing integer field 'pid'") }
    guard let time = object["t"]?.int, time >= 0 else { throw fail("'\(name)' event: missing integer field 't'") }
    for field in requiredFields[name] ?? [] where object[field] == nil {
      throw fail("'\(name)' event: missing field '\(field)'")
    }
    return TargetEvent(name: name, pid: pid, time: UInt64(time), fields: object, line: line)
  }
}
