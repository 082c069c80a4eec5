extension JSONValue {
  /// The value as compact JSON text with sorted keys, which any JSON parser reads back as this
  /// value (`JSONValueParserTests` check it). The harness writes `CHAOS_APP` this way for every
  /// launch, where a `JSONEncoder` cost more than the rest of preparing the launch.
  package var jsonText: String {
    var text = ""
    append(to: &text)
    return text
  }

  private func append(to text: inout String) {
    switch self {
    case .null: text += "null"
    case .bool(let value): text += value ? "true" : "false"
    case .number(let value):
      // Whole numbers as integers (as JSONEncoder writes them), others in Swift's shortest form
      // that reads back as the same Double; not finite (no JSON for it): null.
      if !value.isFinite {
        text += "null"
      } else if value.rounded() == value, abs(value) < 9e15 {
        text += String(Int64(value))
      } else {
        text += String(value)
      }
    case .string(let value): Self.appendString(value, to: &text)
    case .array(let values):
      text += "["
      for (index, value) in values.enumerated() {
        if index > 0 { text += "," }
        value.append(to: &text)
      }
      text += "]"
    case .object(let members):
      text += "{"
      for (index, key) in members.keys.sorted().enumerated() {
        if index > 0 { text += "," }
        Self.appendString(key, to: &text)
        text += ":"
        members[key]!.append(to: &text)
      }
      text += "}"
    }
  }

  private static func appendString(_ value: String, to text: inout String) {
    text += "\""
    for scalar in value.unicodeScalars {
      switch scalar {
      case "\"": text += "\\\""
      case "\\": text += "\\\\"
      case "\n": text += "\\n"
      case "\r": text += "\\r"
      case "\t": text += "\\t"
      case _ where scalar.value < 0x20:
        let hex = String(scalar.value, radix: 16)
        text += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
      default: text.unicodeScalars.append(scalar)
      }
    }
    text += "\""
  }
}
