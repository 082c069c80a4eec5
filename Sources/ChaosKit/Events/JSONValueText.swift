import LaunchProtection

extension JSONValue {
  /// The value as compact JSON text with sorted keys, which any JSON parser reads back as this
  /// value (`JSONValueReadingTests` check it); strings through the project's one escaper
  /// (`/` as `\/`, as `JSONEncoder` wrote it). The harness writes `CHAOS_APP` this way for
  /// every launch, where a `JSONEncoder` cost more than the rest of preparing the launch.
  package var jsonText: String {
    var bytes: [UInt8] = []
    append(to: &bytes)
    return String(decoding: bytes, as: UTF8.self)
  }

  private func append(to bytes: inout [UInt8]) {
    switch self {
    case .null: bytes += "null".utf8
    case .bool(let value): bytes += (value ? "true" : "false").utf8
    case .number(let value):
      // Whole numbers as integers (as JSONEncoder writes them), others in Swift's shortest form
      // that reads back as the same Double; not finite (no JSON for it): null.
      if !value.isFinite {
        bytes += "null".utf8
      } else if value.rounded() == value, abs(value) < 9e15 {
        bytes += String(Int64(value)).utf8
      } else {
        bytes += String(value).utf8
      }
    case .string(let value): StateJSON.appendString(value, to: &bytes)
    case .array(let values):
      bytes.append(UInt8(ascii: "["))
      for (index, value) in values.enumerated() {
        if index > 0 { bytes.append(UInt8(ascii: ",")) }
        value.append(to: &bytes)
      }
      bytes.append(UInt8(ascii: "]"))
    case .object(let members):
      bytes.append(UInt8(ascii: "{"))
      for (index, key) in members.keys.sorted().enumerated() {
        if index > 0 { bytes.append(UInt8(ascii: ",")) }
        StateJSON.appendString(key, to: &bytes)
        bytes.append(UInt8(ascii: ":"))
        members[key]!.append(to: &bytes)
      }
      bytes.append(UInt8(ascii: "}"))
    }
  }
}
