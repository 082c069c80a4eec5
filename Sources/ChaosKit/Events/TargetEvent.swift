/// One line of a target's events file (the harness ↔ target protocol, schema version 1).
public struct TargetEvent: Sendable, Equatable {
  /// The event name (`launch`, `task_start`, `crash`...).
  public var name: String
  /// The process that wrote it.
  public var pid: Int
  /// CLOCK_MONOTONIC nanoseconds.
  public var time: UInt64
  /// Every field, including the three above.
  public var fields: [String: JSONValue]
  /// 1-based line number in the events file.
  public var line: Int
  /// The line's text, kept for `crash` events (a `CrashRecord` is decoded from it); not
  /// compared: equal fields are equal events.
  var text: [UInt8]? = nil

  public static func == (left: TargetEvent, right: TargetEvent) -> Bool {
    left.name == right.name && left.pid == right.pid && left.time == right.time && left.fields == right.fields
      && left.line == right.line
  }

  /// A field by name.
  public subscript(_ key: String) -> JSONValue? { fields[key] }
}
