/// The JSON grammar under `StateJSON.Document`: one pass over the bytes into a flat node list.
extension StateJSON {
  /// What a node is: the six kinds of JSON value, a boolean by its value.
  package enum Kind: UInt8 {
    case object, array, string, number, `true`, `false`, null
  }

  /// One value of the document. A container's members follow it; `next` is the index just
  /// past its last descendant (for a scalar, its own index + 1). A string's range excludes
  /// the quotes.
  struct Node {
    var kind: Kind
    /// A string with a backslash: its escapes are resolved (and checked) when it is read.
    var escaped = false
    /// A string with an escape, a control character or a non-ASCII byte, or a number outside
    /// RFC 8259's grammar: checked when read (`JSONDecoder` checks only what it decodes).
    var unchecked = false
    var start: Int
    var end: Int
    var next: Int
  }

  /// RFC 8259, iteratively (a deeply nested file cannot exhaust the stack), nesting at most
  /// `maximumDepth` deep as `JSONDecoder` allows.
  struct Parser {
    static let maximumDepth = 512
    let bytes: [UInt8]
    var position = 0
    var nodes: [Node] = []

    init(bytes: [UInt8]) { self.bytes = bytes }

    mutating func parse() throws(DecodeError) -> [Node] {
      nodes.reserveCapacity(64)
      var open: [Int] = []  // the containers being read, innermost last
      skipWhitespace()
      value: while true {
        // A value starts here.
        guard position < bytes.count else { throw fail("unexpected end of data") }
        let byte = bytes[position]
        switch byte {
        case UInt8(ascii: "{"), UInt8(ascii: "["):
          guard open.count < Self.maximumDepth else { throw fail("nested deeper than \(Self.maximumDepth)") }
          open.append(nodes.count)
          nodes.append(
            Node(kind: byte == UInt8(ascii: "{") ? .object : .array, start: position, end: position, next: 0))
          position += 1
          skipWhitespace()
          let closing = byte == UInt8(ascii: "{") ? UInt8(ascii: "}") : UInt8(ascii: "]")
          if position < bytes.count, bytes[position] == closing {
            position += 1
            close(open.removeLast())
          } else {
            if byte == UInt8(ascii: "{") { try memberKey() }
            continue value
          }
        case UInt8(ascii: "\""): try string()
        case UInt8(ascii: "t"): try literal("true", .true)
        case UInt8(ascii: "f"): try literal("false", .false)
        case UInt8(ascii: "n"): try literal("null", .null)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): try number()
        default: throw fail("unexpected character")
        }
        // A value ended (or an empty container closed): close containers as they end.
        while true {
          guard let container = open.last else {
            skipWhitespace()
            guard position == bytes.count else { throw fail("unexpected data after the value") }
            return nodes
          }
          // Still open: a comma continues it, its closing bracket ends it.
          skipWhitespace()
          guard position < bytes.count else { throw fail("unexpected end of data") }
          let isObject = nodes[container].kind == .object
          let closing = isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")
          if bytes[position] == UInt8(ascii: ",") {
            position += 1
            skipWhitespace()
            // One comma before the closing bracket is accepted, as JSONDecoder accepts it.
            if position < bytes.count, bytes[position] == closing {
              position += 1
              close(container)
              open.removeLast()
              continue
            }
            if isObject { try memberKey() }
            continue value
          }
          guard bytes[position] == closing else {
            throw fail("expected ',' or '\(Character(Unicode.Scalar(closing)))'")
          }
          position += 1
          close(container)
          open.removeLast()
        }
      }
    }

    /// Closes the container just read: its `next` is the first index after its members.
    private mutating func close(_ container: Int) {
      nodes[container].next = nodes.count
      nodes[container].end = position
    }

    /// A member's key and colon; the value follows.
    private mutating func memberKey() throws(DecodeError) {
      guard position < bytes.count, bytes[position] == UInt8(ascii: "\"") else { throw fail("expected a key") }
      try string()
      skipWhitespace()
      guard position < bytes.count, bytes[position] == UInt8(ascii: ":") else { throw fail("expected ':'") }
      position += 1
      skipWhitespace()
    }

    private mutating func skipWhitespace() {
      while position < bytes.count {
        switch bytes[position] {
        case 0x20, 0x0A, 0x0D, 0x09: position += 1
        default: return
        }
      }
    }

    private mutating func literal(_ word: StaticString, _ kind: Kind) throws(DecodeError) {
      let matched = word.withUTF8Buffer { word in
        position + word.count <= bytes.count && word.indices.allSatisfy { bytes[position + $0] == word[$0] }
      }
      guard matched else { throw fail("unexpected character") }
      nodes.append(Node(kind: kind, start: position, end: position + word.utf8CodeUnitCount, next: nodes.count + 1))
      position += word.utf8CodeUnitCount
    }

    /// A number: the run of the characters numbers are made of, as `JSONDecoder` scans one it
    /// does not decode (`1.`, `01` pass there); RFC 8259's grammar is checked when it is read.
    private mutating func number() throws(DecodeError) {
      let start = position
      while position < bytes.count, Self.isNumberByte(bytes[position]) { position += 1 }
      var check = Parser(bytes: bytes)
      check.position = start
      let strict = check.strictNumber(end: position)
      nodes.append(Node(kind: .number, unchecked: !strict, start: start, end: position, next: nodes.count + 1))
    }

    private static func isNumberByte(_ byte: UInt8) -> Bool {
      switch byte {
      case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "."), UInt8(ascii: "e"), UInt8(ascii: "E"),
        UInt8(ascii: "+"), UInt8(ascii: "-"):
        true
      default: false
      }
    }

    /// Whether the bytes from `position` to `end` are `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`.
    private mutating func strictNumber(end: Int) -> Bool {
      func digit() -> Bool { position < end && isDigit(bytes[position]) }
      if position < end, bytes[position] == UInt8(ascii: "-") { position += 1 }
      guard digit() else { return false }
      if bytes[position] == UInt8(ascii: "0") {
        position += 1
      } else {
        while digit() { position += 1 }
      }
      if position < end, bytes[position] == UInt8(ascii: ".") {
        position += 1
        guard digit() else { return false }
        while digit() { position += 1 }
      }
      if position < end, bytes[position] == UInt8(ascii: "e") || bytes[position] == UInt8(ascii: "E") {
        position += 1
        if position < end, bytes[position] == UInt8(ascii: "+") || bytes[position] == UInt8(ascii: "-") {
          position += 1
        }
        guard digit() else { return false }
        while digit() { position += 1 }
      }
      return position == end
    }

    private func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

    /// A string, found by its closing quote (a backslash skips the next byte). Its content is
    /// checked only when the string is read (`Document.checked`): `JSONDecoder` accepts any
    /// content in strings it does not decode, and so must this, or a file it read would be
    /// moved aside.
    private mutating func string() throws(DecodeError) {
      position += 1  // the opening quote
      let start = position
      var escaped = false
      var unchecked = false
      while true {
        // The plain run up to the next quote or backslash, through a pointer.
        position = bytes.withUnsafeBufferPointer { all in
          var index = position
          while index < all.count {
            let byte = all[index]
            if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") { break }
            if byte < 0x20 || byte >= 0x80 { unchecked = true }
            index += 1
          }
          return index
        }
        guard position < bytes.count else { throw fail("unterminated string") }
        if bytes[position] == UInt8(ascii: "\"") {
          nodes.append(
            Node(
              kind: .string, escaped: escaped, unchecked: unchecked || escaped, start: start, end: position,
              next: nodes.count + 1))
          position += 1
          return
        }
        escaped = true
        position += 2  // the backslash and the byte it escapes
      }
    }

    /// Checks a string's content: no raw control character, valid escapes (a high surrogate
    /// followed by a low one), valid UTF-8. `position` is where to report a problem.
    static func check(_ bytes: [UInt8], _ range: Range<Int>) throws(DecodeError) {
      var parser = Parser(bytes: bytes)
      parser.position = range.lowerBound
      var ascii = true
      while parser.position < range.upperBound {
        let byte = bytes[parser.position]
        if byte == UInt8(ascii: "\\") {
          try parser.escape()
        } else if byte < 0x20 {
          throw parser.fail("unescaped control character in a string")
        } else {
          if byte >= 0x80 { ascii = false }
          parser.position += 1
        }
      }
      if !ascii, !isValidUTF8(bytes[range]) {
        parser.position = range.lowerBound
        throw parser.fail("invalid UTF-8 in a string")
      }
    }

    private mutating func escape() throws(DecodeError) {
      guard position + 1 < bytes.count else { throw fail("unterminated string") }
      switch bytes[position + 1] {
      case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"), UInt8(ascii: "f"),
        UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
        position += 2
      case UInt8(ascii: "u"):
        let scalar = try hex(at: position + 2)
        position += 6
        if (0xDC00..<0xE000).contains(scalar) { throw fail("unpaired surrogate \\u\(String(scalar, radix: 16))") }
        if (0xD800..<0xDC00).contains(scalar) {
          guard position + 1 < bytes.count, bytes[position] == UInt8(ascii: "\\"),
            bytes[position + 1] == UInt8(ascii: "u"),
            (0xDC00..<0xE000).contains(try hex(at: position + 2))
          else { throw fail("unpaired surrogate \\u\(String(scalar, radix: 16))") }
          position += 6
        }
      default: throw fail("invalid escape")
      }
    }

    private func hex(at index: Int) throws(DecodeError) -> UInt32 {
      guard index + 4 <= bytes.count, bytes[index..<(index + 4)].allSatisfy({ Self.hexDigit($0) != nil }) else {
        throw fail("invalid \\u escape")
      }
      return Self.hexValue(bytes, at: index)
    }

    /// The value of four hex digits already checked.
    static func hexValue(_ bytes: [UInt8], at index: Int) -> UInt32 {
      bytes[index..<(index + 4)].reduce(0) { $0 << 4 | UInt32(hexDigit($1) ?? 0) }
    }

    private static func hexDigit(_ byte: UInt8) -> UInt8? {
      switch byte {
      case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
      case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
      case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
      default: nil
      }
    }

    private static func isValidUTF8(_ bytes: ArraySlice<UInt8>) -> Bool {
      var iterator = bytes.makeIterator()
      var decoder = UTF8()
      while true {
        switch decoder.decode(&iterator) {
        case .scalarValue: continue
        case .emptyInput: return true
        case .error: return false
        }
      }
    }

    private func fail(_ reason: String) -> DecodeError {
      .syntax(reason, offset: position)
    }
  }
}
