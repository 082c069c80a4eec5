/// Parses one JSON text (RFC 8259) into a `JSONValue`, accepting exactly what `JSONDecoder`
/// accepts for `JSONValue` — its leniencies included: a comma before a closing bracket, the
/// first of two equal keys — as `JSONValueParserTests` check against it, on the events fuzz
/// corpus and on mutated lines.
///
/// The harness decodes every event line of every launch: `JSONDecoder` reaches a `JSONValue`
/// by trying each type in turn and throwing for each miss, which cost a crash launch about a
/// millisecond of the harness's time, most of `chaos run`'s overhead over a bare spawn.
enum JSONValueParser {
  /// Nesting `JSONDecoder` allows; deeper input is refused as it refuses it.
  static let maximumDepth = 512

  /// The value, or nil when the text is not one JSON value (with only whitespace around it).
  static func parse(_ bytes: UnsafeBufferPointer<UInt8>) -> JSONValue? {
    var parser = Parser(bytes: bytes)
    parser.skipWhitespace()
    guard let value = parser.value(depth: 0) else { return nil }
    parser.skipWhitespace()
    return parser.index == bytes.count ? value : nil
  }

  private struct Parser {
    let bytes: UnsafeBufferPointer<UInt8>
    var index = 0

    init(bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

    var current: UInt8? { index < bytes.count ? bytes[index] : nil }

    mutating func skipWhitespace() {
      while let byte = current, byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 { index += 1 }
    }

    mutating func value(depth: Int) -> JSONValue? {
      guard let byte = current else { return nil }
      switch byte {
      case UInt8(ascii: "{"): return depth < JSONValueParser.maximumDepth ? object(depth: depth + 1) : nil
      case UInt8(ascii: "["): return depth < JSONValueParser.maximumDepth ? array(depth: depth + 1) : nil
      case UInt8(ascii: "\""): return string().map(JSONValue.string)
      case UInt8(ascii: "t"): return literal("true") ? .bool(true) : nil
      case UInt8(ascii: "f"): return literal("false") ? .bool(false) : nil
      case UInt8(ascii: "n"): return literal("null") ? .null : nil
      default: return number().map(JSONValue.number)
      }
    }

    mutating func literal(_ word: StaticString) -> Bool {
      let count = word.utf8CodeUnitCount
      guard index + count <= bytes.count else { return false }
      for offset in 0..<count where bytes[index + offset] != word.utf8Start[offset] { return false }
      index += count
      return true
    }

    mutating func object(depth: Int) -> JSONValue? {
      index += 1  // {
      var members: [String: JSONValue] = [:]
      skipWhitespace()
      if current == UInt8(ascii: "}") {
        index += 1
        return .object(members)
      }
      while true {
        skipWhitespace()
        // A comma before the closing brace is accepted, as JSONDecoder accepts it.
        if current == UInt8(ascii: "}"), !members.isEmpty {
          index += 1
          return .object(members)
        }
        guard current == UInt8(ascii: "\""), let key = string() else { return nil }
        skipWhitespace()
        guard current == UInt8(ascii: ":") else { return nil }
        index += 1
        skipWhitespace()
        guard let member = value(depth: depth) else { return nil }
        // The first of two equal keys counts, as in JSONDecoder.
        if members[key] == nil { members[key] = member }
        skipWhitespace()
        switch current {
        case UInt8(ascii: ","): index += 1
        case UInt8(ascii: "}"):
          index += 1
          return .object(members)
        default: return nil
        }
      }
    }

    mutating func array(depth: Int) -> JSONValue? {
      index += 1  // [
      var elements: [JSONValue] = []
      skipWhitespace()
      if current == UInt8(ascii: "]") {
        index += 1
        return .array(elements)
      }
      while true {
        skipWhitespace()
        // A comma before the closing bracket is accepted, as JSONDecoder accepts it.
        if current == UInt8(ascii: "]"), !elements.isEmpty {
          index += 1
          return .array(elements)
        }
        guard let element = value(depth: depth) else { return nil }
        elements.append(element)
        skipWhitespace()
        switch current {
        case UInt8(ascii: ","): index += 1
        case UInt8(ascii: "]"):
          index += 1
          return .array(elements)
        default: return nil
        }
      }
    }

    /// A string at the opening quote: escapes decoded, UTF-8 validated, control characters refused.
    mutating func string() -> String? {
      index += 1  // "
      let start = index
      // The common case, no escape: the bytes between the quotes, validated as UTF-8.
      while let byte = current, byte != UInt8(ascii: "\""), byte != UInt8(ascii: "\\") {
        guard byte >= 0x20 else { return nil }
        index += 1
      }
      guard let stop = current else { return nil }
      if stop == UInt8(ascii: "\"") {
        index += 1
        return String(validating: UnsafeBufferPointer(rebasing: bytes[start..<(index - 1)]), as: UTF8.self)
      }
      var text = Array(bytes[start..<index])
      while let byte = current {
        index += 1
        switch byte {
        case UInt8(ascii: "\""):
          return String(validating: text, as: UTF8.self)
        case UInt8(ascii: "\\"):
          guard let escaped = current else { return nil }
          index += 1
          switch escaped {
          case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): text.append(escaped)
          case UInt8(ascii: "b"): text.append(0x08)
          case UInt8(ascii: "f"): text.append(0x0C)
          case UInt8(ascii: "n"): text.append(0x0A)
          case UInt8(ascii: "r"): text.append(0x0D)
          case UInt8(ascii: "t"): text.append(0x09)
          case UInt8(ascii: "u"):
            guard let scalar = unicodeEscape() else { return nil }
            text.append(contentsOf: String(Character(scalar)).utf8)
          default: return nil
          }
        default:
          guard byte >= 0x20 else { return nil }
          text.append(byte)
        }
      }
      return nil
    }

    /// After `\u`: four hex digits, and a second `\uXXXX` for a surrogate pair; a lone
    /// surrogate is refused.
    mutating func unicodeEscape() -> Unicode.Scalar? {
      guard let high = hex4() else { return nil }
      if (0xDC00...0xDFFF).contains(high) { return nil }
      if (0xD800...0xDBFF).contains(high) {
        guard index + 2 <= bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u")
        else { return nil }
        index += 2
        guard let low = hex4(), (0xDC00...0xDFFF).contains(low) else { return nil }
        return Unicode.Scalar(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00))
      }
      return Unicode.Scalar(high)
    }

    mutating func hex4() -> UInt32? {
      guard index + 4 <= bytes.count else { return nil }
      var value: UInt32 = 0
      for _ in 0..<4 {
        let byte = bytes[index]
        let digit: UInt8
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
        default: return nil
        }
        value = value << 4 | UInt32(digit)
        index += 1
      }
      return value
    }

    /// `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`, as the Double it rounds to.
    mutating func number() -> Double? {
      let start = index
      if current == UInt8(ascii: "-") { index += 1 }
      guard let first = current, isDigit(first) else { return nil }
      index += 1
      if first != UInt8(ascii: "0") { skipDigits() }
      if current == UInt8(ascii: ".") {
        index += 1
        guard let digit = current, isDigit(digit) else { return nil }
        skipDigits()
      }
      if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
        index += 1
        if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { index += 1 }
        guard let digit = current, isDigit(digit) else { return nil }
        skipDigits()
      }
      guard let value = Double(String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)),
        value.isFinite
      else { return nil }
      return value
    }

    mutating func skipDigits() {
      while let byte = current, isDigit(byte) { index += 1 }
    }

    func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }
  }
}
