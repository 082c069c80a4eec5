/// The state's JSON, written and read by hand: the launch path's codec.
///
/// Foundation's `JSONEncoder`/`JSONDecoder` cost about three quarters of the instructions of a
/// launch's two state updates, and their first use in a process instantiates generic metadata
/// for every `Codable` type (the larger part of a fresh process's first launch). This codec
/// writes the bytes `JSONEncoder` with `.sortedKeys` wrote (same keys, same order, same
/// escapes, numbers in the same form), so files stay what `cat` and `jq` read and what older
/// versions of the library decode; it reads what `JSONDecoder` read into these types —
/// whitespace, escapes, unknown keys, integers written `3.0`, and `JSONDecoder`'s leniencies
/// (a trailing comma; the first of repeated keys; string and number contents checked only
/// where a field is read) — and rejects the rest with the same kinds of problem the store
/// reported before (not JSON, a missing field, a wrong type).
enum StateJSON {
  // MARK: Writing

  /// The state as one line of JSON with sorted keys (equal states are equal bytes).
  static func encode(_ state: LaunchState) -> [UInt8] {
    var out = Writer()
    out.bytes.reserveCapacity(
      256 + state.launchesInProgress.count * 256 + (state.lastCrashCause?.detail?.utf8.count ?? 0))
    out.open()
    if let level = state.attemptedProtectLevel {
      out.key("attemptedProtectLevel", first: true)
      out.integer(Int64(level))
    }
    out.key("consecutiveCrashes", first: state.attemptedProtectLevel == nil)
    out.integer(Int64(state.consecutiveCrashes))
    if let executableID = state.executableID {
      out.key("executableID")
      out.string(executableID)
    }
    if let cause = state.lastCrashCause {
      out.key("lastCrashCause")
      out.open()
      out.key("afterLaunch", first: true)
      out.boolean(cause.afterLaunch)
      if let detail = cause.detail {
        out.key("detail")
        out.string(detail)
      }
      if let pid = cause.pid {
        out.key("pid")
        out.integer(Int64(pid))
      }
      out.key("recordedAt")
      out.double(cause.recordedAt)
      out.key("type")
      out.string(cause.type)
      out.close()
    }
    if let exit = state.lastUncountedExit {
      out.key("lastUncountedExit")
      out.open()
      out.key("decidedAt", first: true)
      out.double(exit.decidedAt)
      out.key("pid")
      out.integer(Int64(exit.pid))
      out.key("reason")
      out.string(exit.reason.rawValue)
      out.close()
    }
    out.key("launchesInProgress")
    out.bytes.append(UInt8(ascii: "["))
    // Indices, not `enumerated()`: its element tuple's metadata costs a fresh process's first write.
    for index in state.launchesInProgress.indices {
      let record = state.launchesInProgress[index]
      if index > 0 { out.bytes.append(UInt8(ascii: ",")) }
      out.open()
      out.key("launchID", first: true)
      out.string(record.launchID)
      out.key("phase")
      out.string(record.phase.rawValue)
      out.key("process")
      out.open()
      out.key("bootID", first: true)
      out.string(record.process.bootID)
      if let machine = record.process.machine {
        out.key("machine")
        out.string(machine)
      }
      out.key("pid")
      out.integer(Int64(record.process.pid))
      out.key("startTime")
      out.unsigned(record.process.startTime)
      out.close()
      out.key("startedAt")
      out.double(record.startedAt)
      if let stop = record.stopRequestedAt {
        out.key("stopRequestedAt")
        out.double(stop)
      }
      out.close()
    }
    out.bytes.append(UInt8(ascii: "]"))
    out.key("version")
    out.integer(Int64(state.version))
    out.close()
    return out.bytes
  }

  private struct Writer {
    var bytes: [UInt8] = []

    mutating func open() { bytes.append(UInt8(ascii: "{")) }
    mutating func close() { bytes.append(UInt8(ascii: "}")) }

    /// `"name":`, after a comma unless it is the object's first member. Keys are ASCII
    /// identifiers: nothing to escape.
    mutating func key(_ name: StaticString, first: Bool = false) {
      if !first { bytes.append(UInt8(ascii: ",")) }
      bytes.append(UInt8(ascii: "\""))
      name.withUTF8Buffer { bytes.append(contentsOf: $0) }
      bytes.append(UInt8(ascii: "\""))
      bytes.append(UInt8(ascii: ":"))
    }

    mutating func boolean(_ value: Bool) {
      bytes.append(contentsOf: value ? Self.trueBytes : Self.falseBytes)
    }
    private static let trueBytes = Array("true".utf8)
    private static let falseBytes = Array("false".utf8)

    mutating func integer(_ value: Int64) {
      if value < 0 { bytes.append(UInt8(ascii: "-")) }
      unsigned(value.magnitude)
    }

    mutating func unsigned(_ value: UInt64) {
      var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)  // 24 bytes on the stack: UInt64.max has 20 digits
      withUnsafeMutableBytes(of: &digits) { buffer in
        var index = 0
        var rest = value
        repeat {
          buffer[index] = UInt8(ascii: "0") + UInt8(rest % 10)
          rest /= 10
          index += 1
        } while rest > 0
        while index > 0 {
          index -= 1
          bytes.append(buffer[index])
        }
      }
    }

    /// Swift's shortest representation that reads back as the same `Double` (what
    /// `JSONEncoder` writes too: `1764000000.25`, `1700000000` without `.0`, `1e-06`).
    /// Not finite (which no clock gives): `null`, which the next read reports as a wrong type
    /// (`JSONEncoder` failed to encode such a state, leaving an empty, corrupt slot).
    mutating func double(_ value: Double) {
      guard value.isFinite else {
        bytes.append(contentsOf: Array("null".utf8))
        return
      }
      var text = value.description
      if text.hasSuffix(".0") { text.removeLast(2) }
      bytes.append(contentsOf: text.utf8)
    }

    /// A JSON string (RFC 8259): quote, backslash and control characters escaped, `/` as
    /// `\/` as `JSONEncoder` writes it; everything else as its UTF-8 bytes (a Swift string
    /// is always valid UTF-8, so invalid UTF-8 is never written).
    mutating func string(_ value: String) {
      bytes.append(UInt8(ascii: "\""))
      // Most strings (ids, paths, names) need no escape: copied whole.
      var value = value
      let copied: Bool = value.withUTF8 { text in
        guard
          !text.contains(where: {
            $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") || $0 == UInt8(ascii: "/")
          })
        else { return false }
        bytes.append(contentsOf: text)
        return true
      }
      if copied {
        bytes.append(UInt8(ascii: "\""))
        return
      }
      for byte in value.utf8 {
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"):
          bytes.append(UInt8(ascii: "\\"))
          bytes.append(byte)
        case 0x08: escape(UInt8(ascii: "b"))
        case 0x0C: escape(UInt8(ascii: "f"))
        case 0x0A: escape(UInt8(ascii: "n"))
        case 0x0D: escape(UInt8(ascii: "r"))
        case 0x09: escape(UInt8(ascii: "t"))
        case 0..<0x20:
          escape(UInt8(ascii: "u"))
          bytes.append(contentsOf: [
            UInt8(ascii: "0"), UInt8(ascii: "0"), Self.hex[Int(byte >> 4)], Self.hex[Int(byte & 0xF)],
          ])
        default: bytes.append(byte)
        }
      }
      bytes.append(UInt8(ascii: "\""))
    }

    private mutating func escape(_ letter: UInt8) {
      bytes.append(UInt8(ascii: "\\"))
      bytes.append(letter)
    }
    private static let hex = Array("0123456789abcdef".utf8)
  }

  // MARK: Reading

  /// Why bytes are not a state, in the words the store's problem reports use.
  enum DecodeError: Error, Equatable {
    /// Not JSON at all (RFC 8259), with where and why.
    case syntax(String)
    /// A field the state requires is absent (`path` as `launchesInProgress.0.launchID`).
    case missing(path: String)
    /// A field has the wrong JSON type, or a value its Swift type cannot hold.
    case wrongType(path: String, detail: String)

    /// The detail of the `.corrupt` problem; `byteCount` is the size of the JSON read.
    func detail(byteCount: Int) -> String {
      switch self {
      case .syntax(let reason): "not valid JSON (\(byteCount) bytes): \(reason)"
      case .missing(let path): "missing field '\(path)'"
      case .wrongType(let path, let detail): "wrong type at '\(path)': \(detail)"
      }
    }
  }

  /// A parsed JSON text: the whole input's structure was checked first (as `JSONDecoder`
  /// does), so a file is either JSON or reported as such before any field is looked at.
  struct Document {
    fileprivate let bytes: [UInt8]
    fileprivate let nodes: [Node]

    /// Parses `bytes` as one JSON value (with surrounding whitespace).
    init(_ bytes: [UInt8]) throws(DecodeError) {
      self.bytes = bytes
      var parser = Parser(bytes: bytes)
      nodes = try parser.parse()
    }

    /// The `version` field, read on its own so that a newer format is told apart before
    /// the rest of it is judged.
    func version() throws(DecodeError) -> Int {
      let root = try object(at: 0, path: "")
      return try integer(required(root, "version", path: ""), path: "version")
    }

    /// The whole state.
    func state() throws(DecodeError) -> LaunchState {
      let root = try object(at: 0, path: "")
      var state = LaunchState()
      state.version = try integer(required(root, "version", path: ""), path: "version")
      state.consecutiveCrashes = try integer(
        required(root, "consecutiveCrashes", path: ""), path: "consecutiveCrashes")
      let launches = try required(root, "launchesInProgress", path: "")
      guard nodes[launches].kind == .array else {
        throw .wrongType(path: "launchesInProgress", detail: "expected an array, found \(describe(launches))")
      }
      var records: [LaunchRecord] = []
      var element = launches + 1
      var index = 0
      while element < nodes[launches].next {
        records.append(try record(at: element, path: "launchesInProgress.\(index)"))
        element = nodes[element].next
        index += 1
      }
      state.launchesInProgress = records
      if let level = optional(root, "attemptedProtectLevel") {
        state.attemptedProtectLevel = try integer(level, path: "attemptedProtectLevel")
      }
      if let executable = optional(root, "executableID") {
        state.executableID = try string(executable, path: "executableID")
      }
      if let cause = optional(root, "lastCrashCause") { state.lastCrashCause = try crashCause(at: cause) }
      if let exit = optional(root, "lastUncountedExit") { state.lastUncountedExit = try uncountedExit(at: exit) }
      return state
    }

    private func record(at index: Int, path: @autoclosure () -> String) throws(DecodeError) -> LaunchRecord {
      let object = try object(at: index, path: path())
      let process = try required(object, "process", path: path())
      _ = try self.object(at: process, path: path() + ".process")
      var identity = ProcessIdentity(
        pid: try integer(required(process, "pid", path: path() + ".process"), path: path() + ".process.pid"),
        startTime: try integer(
          required(process, "startTime", path: path() + ".process"), path: path() + ".process.startTime"),
        bootID: try string(required(process, "bootID", path: path() + ".process"), path: path() + ".process.bootID"))
      if let machine = optional(process, "machine") {
        identity.machine = try string(machine, path: path() + ".process.machine")
      }
      let phaseText = try string(required(object, "phase", path: path()), path: path() + ".phase")
      guard let phase = LaunchPhase(rawValue: phaseText) else {
        throw .wrongType(path: path() + ".phase", detail: "no launch phase named \"\(phaseText)\"")
      }
      var record = LaunchRecord(
        process: identity, launchID: try string(required(object, "launchID", path: path()), path: path() + ".launchID"),
        phase: phase, startedAt: try double(required(object, "startedAt", path: path()), path: path() + ".startedAt"))
      if let stop = optional(object, "stopRequestedAt") {
        record.stopRequestedAt = try double(stop, path: path() + ".stopRequestedAt")
      }
      return record
    }

    private func crashCause(at index: Int) throws(DecodeError) -> CrashCause {
      let path = "lastCrashCause"
      _ = try object(at: index, path: path)
      var cause = CrashCause(
        type: try string(required(index, "type", path: path), path: path + ".type"),
        recordedAt: try double(required(index, "recordedAt", path: path), path: path + ".recordedAt"))
      cause.afterLaunch = try boolean(required(index, "afterLaunch", path: path), path: path + ".afterLaunch")
      if let detail = optional(index, "detail") { cause.detail = try string(detail, path: path + ".detail") }
      if let pid = optional(index, "pid") { cause.pid = try integer(pid, path: path + ".pid") }
      return cause
    }

    private func uncountedExit(at index: Int) throws(DecodeError) -> UncountedExit {
      let path = "lastUncountedExit"
      _ = try object(at: index, path: path)
      let reasonText = try string(required(index, "reason", path: path), path: path + ".reason")
      guard let reason = UncountedReason(rawValue: reasonText) else {
        throw .wrongType(path: path + ".reason", detail: "no reason named \"\(reasonText)\"")
      }
      return UncountedExit(
        reason: reason, pid: try integer(required(index, "pid", path: path), path: path + ".pid"),
        decidedAt: try double(required(index, "decidedAt", path: path), path: path + ".decidedAt"))
    }

    // Lookups. An object's members are key and value nodes in turn. Only the state's own
    // objects are searched, so this stays linear in size.

    /// The object at `index`, its keys checked (`JSONDecoder` reads every key of an object it
    /// decodes, and only those).
    private func object(at index: Int, path: @autoclosure () -> String) throws(DecodeError) -> Int {
      guard nodes[index].kind == .object else {
        throw .wrongType(path: path(), detail: "expected an object, found \(describe(index))")
      }
      var key = index + 1
      while key < nodes[index].next {
        if nodes[key].unchecked { try Parser.check(bytes, nodes[key].start..<nodes[key].end) }
        key = nodes[key + 1].next
      }
      return index
    }

    /// The value node of `key` in the object at `object`, or nil when absent or null
    /// (an optional field; `JSONDecoder` reads null as absent too).
    private func optional(_ object: Int, _ key: StaticString) -> Int? {
      guard let value = member(object, key), nodes[value].kind != .null else { return nil }
      return value
    }

    private func required(_ object: Int, _ key: StaticString, path: @autoclosure () -> String) throws(DecodeError)
      -> Int
    {
      // The path is built only for a report: on the launch path no field is missing.
      func field() -> String { path().isEmpty ? "\(key)" : "\(path()).\(key)" }
      guard let value = member(object, key) else { throw .missing(path: field()) }
      guard nodes[value].kind != .null else { throw .wrongType(path: field(), detail: "expected a value, found null") }
      return value
    }

    /// A repeated key: the first one counts, as in `JSONDecoder`.
    private func member(_ object: Int, _ key: StaticString) -> Int? {
      var index = object + 1
      let end = nodes[object].next
      while index < end {
        if keyEquals(index, key) { return index + 1 }
        index = nodes[index + 1].next
      }
      return nil
    }

    private func keyEquals(_ index: Int, _ key: StaticString) -> Bool {
      let node = nodes[index]
      guard !node.escaped else { return Array(unescaped(node).utf8) == key.withUTF8Buffer { Array($0) } }
      let count = key.utf8CodeUnitCount
      guard node.end - node.start == count else { return false }
      // Byte by byte through pointers: this runs for every member of every object read.
      return bytes.withUnsafeBufferPointer { all in
        let found = all.baseAddress! + node.start
        let wanted = key.utf8Start
        for offset in 0..<count where found[offset] != wanted[offset] { return false }
        return true
      }
    }

    // Values.

    private func string(_ index: Int, path: @autoclosure () -> String) throws(DecodeError) -> String {
      guard nodes[index].kind == .string else {
        throw .wrongType(path: path(), detail: "expected a string, found \(describe(index))")
      }
      if nodes[index].unchecked { try Parser.check(bytes, nodes[index].start..<nodes[index].end) }
      return unescaped(nodes[index])
    }

    private func boolean(_ index: Int, path: @autoclosure () -> String) throws(DecodeError) -> Bool {
      switch nodes[index].kind {
      case .true: return true
      case .false: return false
      default: throw .wrongType(path: path(), detail: "expected a boolean, found \(describe(index))")
      }
    }

    private func double(_ index: Int, path: @autoclosure () -> String) throws(DecodeError) -> Double {
      guard nodes[index].kind == .number else {
        throw .wrongType(path: path(), detail: "expected a number, found \(describe(index))")
      }
      try checkNumber(index)
      // The grammar was checked, which Double's parser accepts. Out of range either way
      // (infinite, or a nonzero number that became 0) does not fit, as for JSONDecoder.
      let text = text(nodes[index])
      guard let value = Double(text), value.isFinite,
        value != 0
          || !text.utf8.prefix(while: { $0 != UInt8(ascii: "e") && $0 != UInt8(ascii: "E") }).contains(where: {
            $0 >= UInt8(ascii: "1") && $0 <= UInt8(ascii: "9")
          })
      else {
        throw .wrongType(path: path(), detail: "number \(text) does not fit Double")
      }
      return value
    }

    /// An integer of type `T`: digits exactly; a number written with a fraction or exponent
    /// (`3.0`, `3e0`) only when it is exactly a whole number `T` holds.
    private func integer<T: FixedWidthInteger>(_ index: Int, path: @autoclosure () -> String) throws(DecodeError) -> T {
      let node = nodes[index]
      guard node.kind == .number else {
        throw .wrongType(path: path(), detail: "expected an integer, found \(describe(index))")
      }
      try checkNumber(index)
      let text = text(node)
      if let exact = T(text, radix: 10) ?? Self.wholeNumber(text).flatMap({ T($0, radix: 10) }) { return exact }
      throw .wrongType(path: path(), detail: "number \(text) does not fit \(T.self)")
    }

    /// The digits of a number written with a fraction or an exponent (`3.0`, `25e-1`, `3E2`)
    /// when it is a whole number, computed exactly in decimal (not through a Double, which
    /// would round 9007199254740993.0); nil otherwise.
    private static func wholeNumber(_ text: String) -> String? {
      var mantissa = Substring(text)
      var exponent = 0
      if let e = mantissa.firstIndex(where: { $0 == "e" || $0 == "E" }) {
        guard let value = Int(mantissa[mantissa.index(after: e)...]), abs(value) < 64 else { return nil }
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
    private func checkNumber(_ index: Int) throws(DecodeError) {
      guard nodes[index].unchecked else { return }
      throw .syntax("invalid number \(text(nodes[index])) at byte \(nodes[index].start)")
    }

    private func text(_ node: Node) -> String {
      String(decoding: bytes[node.start..<node.end], as: UTF8.self)
    }

    private func describe(_ index: Int) -> String {
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
    private func unescaped(_ node: Node) -> String {
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
          var scalar = Parser.hexValue(bytes, at: index)
          index += 4
          if (0xD800..<0xDC00).contains(scalar) {
            // The parser checked that a low surrogate follows.
            let low = Parser.hexValue(bytes, at: index + 2)
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

  fileprivate enum Kind: UInt8 {
    case object, array, string, number, `true`, `false`, null
  }

  /// One value of the document. A container's members follow it; `next` is the index just
  /// past its last descendant (for a scalar, its own index + 1). A string's range excludes
  /// the quotes.
  fileprivate struct Node {
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
  fileprivate struct Parser {
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
      .syntax("\(reason) at byte \(position)")
    }
  }
}
