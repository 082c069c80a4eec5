import Failpoints

/// A document's values: strings, booleans and numbers read as JSONDecoder reads them.
extension StateJSON.Document {
  // Values.

  func string(_ index: Int, path: @autoclosure () -> String) throws(StateJSON.DecodeError) -> String {
    guard nodes[index].kind == .string else {
      throw .wrongType(path: path(), detail: "expected a string, found \(describe(index))")
    }
    if nodes[index].unchecked { try StateJSON.Parser.check(bytes, nodes[index].start..<nodes[index].end) }
    return unescaped(nodes[index])
  }

  func boolean(_ index: Int, path: @autoclosure () -> String) throws(StateJSON.DecodeError) -> Bool {
    switch nodes[index].kind {
    case .true: return true
    case .false: return false
    default: throw .wrongType(path: path(), detail: "expected a boolean, found \(describe(index))")
    }
  }

  // `double` and `integer` take the path as a closure, and the optimizer copies such a function
  // into each caller that passes its own (22 copies, 24 KiB in every program): the copies are
  // kept to a few lines, the work is in functions without a closure.

  func double(_ index: Int, path: @autoclosure () -> String) throws(StateJSON.DecodeError) -> Double {
    do throws(ValueFailure) { return try doubleValue(index) } catch { throw error.error(path: path()) }
  }

  @inline(never)
  private func doubleValue(_ index: Int) throws(ValueFailure) -> Double {
    let text = try numberText(index, expected: "a number")
    // The grammar was checked, which Double's parser accepts. Out of range either way
    // (infinite, or a nonzero number that became 0) does not fit, as for JSONDecoder.
    guard let value = Double(text), value.isFinite,
      value != 0
        || !text.utf8.prefix(while: { $0 != UInt8(ascii: "e") && $0 != UInt8(ascii: "E") }).contains(where: {
          $0 >= UInt8(ascii: "1") && $0 <= UInt8(ascii: "9")
        })
    else {
      throw .wrongType("number \(text) does not fit Double")
    }
    return value
  }

  /// An integer of type `T`: digits exactly; a number written with a fraction or exponent
  /// (`3.0`, `3e0`) only when it is exactly a whole number `T` holds.
  func integer<T: FixedWidthInteger>(_ index: Int, path: @autoclosure () -> String) throws(StateJSON.DecodeError) -> T {
    let text: String
    do throws(ValueFailure) { text = try numberText(index, expected: "an integer") } catch {
      throw error.error(path: path())
    }
    if let exact: T = Self.exactly(text) { return exact }
    throw ValueFailure.doesNotFit(text, T.self).error(path: path())
  }

  /// The text of the number at `index`, its grammar checked, not yet converted. Typed throws,
  /// not a `Result`: see `StateStore.decode`.
  @inline(never)
  private func numberText(_ index: Int, expected: String) throws(ValueFailure) -> String {
    guard nodes[index].kind == .number else {
      throw .wrongType("expected \(expected), found \(describe(index))")
    }
    do throws(StateJSON.DecodeError) { try checkNumber(index) } catch { throw .complete(error) }
    return text(nodes[index])
  }

  @inline(never)
  private static func exactly<T: FixedWidthInteger>(_ text: String) -> T? {
    IntegerText.value(text) ?? wholeNumber(text).flatMap { IntegerText.value($0) }
  }

  /// A value's error before its path is known.
  private enum ValueFailure: Error {
    /// An error that needs no path (a number's syntax).
    case complete(StateJSON.DecodeError)
    /// A wrong type, with what was found.
    case wrongType(String)

    static func doesNotFit(_ text: String, _ type: Any.Type) -> ValueFailure {
      .wrongType("number \(text) does not fit \(type)")
    }

    func error(path: String) -> StateJSON.DecodeError {
      switch self {
      case .complete(let error): error
      case .wrongType(let detail): .wrongType(path: path, detail: detail)
      }
    }
  }

  /// The digits of a number written with a fraction or an exponent (`3.0`, `25e-1`, `3E2`)
  /// when it is a whole number, computed exactly in decimal (not through a Double, which
  /// would round 9007199254740993.0); nil otherwise.
  static func wholeNumber(_ text: String) -> String? {
    var mantissa = Substring(text)
    var exponent = 0
    if let e = mantissa.firstIndex(where: { $0 == "e" || $0 == "E" }) {
      guard let value: Int = IntegerText.value(mantissa[mantissa.index(after: e)...]), abs(value) < 64 else {
        return nil
      }
      exponent = value
      mantissa = mantissa[..<e]
    }
    let negative = mantissa.hasPrefix("-")
    if negative { mantissa = mantissa.dropFirst() }
    var digits = String(mantissa)
    if let dot = digits.firstIndex(of: ".") {
      exponent -= digits.distance(from: dot, to: digits.endIndex) - 1
      digits.remove(at: dot)
    }
    if exponent >= 0 {
      digits += String(repeating: "0", count: exponent)
    } else {
      guard digits.suffix(-exponent).allSatisfy({ $0 == "0" }) else { return nil }
      digits = String(digits.dropLast(-exponent))
    }
    if digits.isEmpty { digits = "0" }
    return negative ? "-" + digits : digits
  }

  /// A number read must be RFC 8259's (`JSONDecoder` rejects `1.` or `01` where it reads one).
  func checkNumber(_ index: Int) throws(StateJSON.DecodeError) {
    guard nodes[index].unchecked else { return }
    throw .syntax("invalid number \(text(nodes[index]))", offset: nodes[index].start)
  }

  func text(_ node: StateJSON.Node) -> String {
    String(decoding: bytes[node.start..<node.end], as: UTF8.self)
  }

  func describe(_ index: Int) -> String {
    switch nodes[index].kind {
    case .object: "an object"
    case .array: "an array"
    case .string: "a string"
    case .number: "a number"
    case .true, .false: "a boolean"
    case .null: "null"
    }
  }

  /// A string node's text with its escapes resolved (the parser checked them).
  func unescaped(_ node: StateJSON.Node) -> String {
    guard node.escaped else { return String(decoding: bytes[node.start..<node.end], as: UTF8.self) }
    var out: [UInt8] = []
    out.reserveCapacity(node.end - node.start)
    var index = node.start
    while index < node.end {
      let byte = bytes[index]
      guard byte == UInt8(ascii: "\\") else {
        out.append(byte)
        index += 1
        continue
      }
      let letter = bytes[index + 1]
      index += 2
      switch letter {
      case UInt8(ascii: "b"): out.append(0x08)
      case UInt8(ascii: "f"): out.append(0x0C)
      case UInt8(ascii: "n"): out.append(0x0A)
      case UInt8(ascii: "r"): out.append(0x0D)
      case UInt8(ascii: "t"): out.append(0x09)
      case UInt8(ascii: "u"):
        var scalar = StateJSON.Parser.hexValue(bytes, at: index)
        index += 4
        if (0xD800..<0xDC00).contains(scalar) {
          // The parser checked that a low surrogate follows.
          let low = StateJSON.Parser.hexValue(bytes, at: index + 2)
          index += 6
          scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
        }
        out.append(contentsOf: String(Character(Unicode.Scalar(scalar)!)).utf8)
      default: out.append(letter)  // `"`, `\`, `/`
      }
    }
    return String(decoding: out, as: UTF8.self)
  }
}
