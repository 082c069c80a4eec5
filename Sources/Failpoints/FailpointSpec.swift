/// One step of a failpoint's chain: `[p%][cnt*]action[(arg)]`.
public struct FailpointTerm: Sendable, Equatable {
  /// Chance in 0...1 that this term fires when reached (`p%`); 1 when absent.
  public var probability: Double
  /// How many more times the term may fire (`cnt*`); nil for unlimited.
  public var remaining: Int?
  /// What the term does.
  public var action: FailpointAction

  /// Creates a term.
  public init(probability: Double = 1, remaining: Int? = nil, action: FailpointAction) {
    self.probability = probability
    self.remaining = remaining
    self.action = action
  }
}

/// A named failpoint with its chain of terms, as written `name=term->term`.
public struct FailpointSpec: Sendable, Equatable {
  /// The failpoint's name, e.g. `task.network`.
  public var name: String
  /// The chain, tried in order; the first term that fires wins.
  public var terms: [FailpointTerm]

  /// Creates a spec.
  public init(name: String, terms: [FailpointTerm]) {
    self.name = name
    self.terms = terms
  }
}

/// A spec that does not parse; its description quotes the spec and points at the problem.
public struct FailpointSpecError: Error, CustomStringConvertible, Equatable {
  /// The whole text that was being parsed.
  public var spec: String
  /// Character offset of the problem in `spec`.
  public var offset: Int
  /// What is wrong.
  public var message: String

  /// Creates an error.
  public init(spec: String, offset: Int, message: String) {
    self.spec = spec
    self.offset = offset
    self.message = message
  }

  public var description: String {
    let caret = String(repeating: " ", count: max(0, offset)) + "^"
    return "invalid failpoint spec: \(message)\n  \(spec)\n  \(caret)"
  }
}

/// Parses the fail-rs grammar: `name=[p%][cnt*]action[(arg)][->…]`, several separated by `;`.
public enum FailpointSpecParser {
  /// Parses a whole configuration string such as `CHAOS_FAILPOINTS`.
  public static func parse(_ text: String) throws(FailpointSpecError) -> [FailpointSpec] {
    let chars = Array(text)
    var specs: [FailpointSpec] = []
    var start = 0
    while start <= chars.count {
      let end = chars[start...].firstIndex(of: ";") ?? chars.count
      if let spec = try parseEntry(chars, start..<end, whole: text) { specs.append(spec) }
      start = end + 1
    }
    return specs
  }

  /// Parses the part after `=` for one failpoint, e.g. `20%3*print(hi)->segv`.
  public static func parseActions(_ text: String, name: String) throws(FailpointSpecError) -> FailpointSpec {
    let chars = Array(text)
    return FailpointSpec(name: name, terms: try parseChain(chars, 0..<chars.count, whole: text))
  }

  private static func parseEntry(
    _ chars: [Character], _ range: Range<Int>, whole: String
  ) throws(FailpointSpecError) -> FailpointSpec? {
    let range = trimmed(chars, range)
    if range.isEmpty { return nil }
    guard let equals = chars[range].firstIndex(of: "=") else {
      throw FailpointSpecError(
        spec: whole, offset: range.upperBound, message: "expected 'name=action' but found no '='")
    }
    let nameRange = trimmed(chars, range.lowerBound..<equals)
    let name = String(chars[nameRange])
    guard !name.isEmpty else {
      throw FailpointSpecError(spec: whole, offset: range.lowerBound, message: "missing failpoint name before '='")
    }
    if let bad = name.firstIndex(where: { !isNameCharacter($0) }) {
      let offset = nameRange.lowerBound + name.distance(from: name.startIndex, to: bad)
      throw FailpointSpecError(
        spec: whole, offset: offset, message: "invalid character '\(name[bad])' in failpoint name '\(name)'")
    }
    let terms = try parseChain(chars, equals + 1..<range.upperBound, whole: whole)
    return FailpointSpec(name: name, terms: terms)
  }

  private static func parseChain(
    _ chars: [Character], _ range: Range<Int>, whole: String
  ) throws(FailpointSpecError) -> [FailpointTerm] {
    var terms: [FailpointTerm] = []
    var start = range.lowerBound
    while true {
      let end = arrowIndex(chars, from: start, before: range.upperBound) ?? range.upperBound
      terms.append(try parseTerm(chars, start..<end, whole: whole))
      if end == range.upperBound { break }
      start = end + 2
    }
    return terms
  }

  /// Finds the next `->` outside parentheses, so `print(a->b)` keeps its argument.
  private static func arrowIndex(_ chars: [Character], from: Int, before end: Int) -> Int? {
    var depth = 0
    var index = from
    while index + 1 < end {
      switch chars[index] {
      case "(": depth += 1
      case ")": depth = max(0, depth - 1)
      case "-" where depth == 0 && chars[index + 1] == ">": return index
      default: break
      }
      index += 1
    }
    return nil
  }

  private static func parseTerm(
    _ chars: [Character], _ range: Range<Int>, whole: String
  ) throws(FailpointSpecError) -> FailpointTerm {
    let range = trimmed(chars, range)
    func fail(_ at: Int, _ message: String) -> FailpointSpecError {
      FailpointSpecError(spec: whole, offset: at, message: message)
    }
    guard !range.isEmpty else { throw fail(range.lowerBound, "empty action") }
    var cursor = range.lowerBound
    var probability = 1.0
    var remaining: Int?

    if let percent = chars[range].firstIndex(of: "%"), !chars[cursor..<percent].contains("(") {
      let text = String(chars[cursor..<percent])
      guard let value = Double(text), value >= 0, value <= 100 else {
        throw fail(cursor, "malformed probability '\(text)%' (expected a number from 0 to 100 followed by '%')")
      }
      probability = value / 100
      cursor = percent + 1
    }
    if let star = chars[cursor..<range.upperBound].firstIndex(of: "*"),
      !chars[cursor..<star].contains("(")
    {
      let text = String(chars[cursor..<star])
      guard let value: Int = IntegerText.value(text), value >= 0 else {
        throw fail(cursor, "malformed count '\(text)*' (expected a whole number followed by '*')")
      }
      remaining = value
      cursor = star + 1
    }
    let action = try parseAction(chars, cursor..<range.upperBound, whole: whole)
    return FailpointTerm(probability: probability, remaining: remaining, action: action)
  }

  private static func parseAction(
    _ chars: [Character], _ range: Range<Int>, whole: String
  ) throws(FailpointSpecError) -> FailpointAction {
    func fail(_ at: Int, _ message: String) -> FailpointSpecError {
      FailpointSpecError(spec: whole, offset: at, message: message)
    }
    let open = chars[range].firstIndex(of: "(")
    let keyword = String(chars[range.lowerBound..<(open ?? range.upperBound)])
      .trimmingWhitespace()
    var argument: String?
    var argumentStart = range.upperBound
    if let open {
      guard chars[range.upperBound - 1] == ")" else {
        throw fail(range.upperBound, "missing ')' after the argument of '\(keyword)'")
      }
      argumentStart = open + 1
      argument = String(chars[open + 1..<range.upperBound - 1])
    }
    guard FailpointAction.keywords.contains(keyword) else {
      throw fail(
        range.lowerBound,
        "unknown action '\(keyword)' (known: \(FailpointAction.keywords.joined(separator: ", ")))")
    }
    func integer(_ what: String) throws(FailpointSpecError) -> Int {
      guard let argument, let value: Int = IntegerText.value(argument.trimmingWhitespace()), value >= 0 else {
        throw fail(argumentStart, "'\(keyword)' needs a whole number of \(what), e.g. \(keyword)(100)")
      }
      return value
    }
    func noArgument(_ action: FailpointAction) throws(FailpointSpecError) -> FailpointAction {
      if argument != nil { throw fail(argumentStart, "'\(keyword)' takes no argument") }
      return action
    }
    switch keyword {
    case "off": return try noArgument(.off)
    case "print": return .print(argument ?? "failpoint fired")
    case "sleep": return .sleep(milliseconds: try integer("milliseconds"))
    case "delay": return .delay(milliseconds: try integer("milliseconds"))
    case "hang": return try noArgument(.hang)
    case "exit":
      guard let argument else { return .exit(code: 1) }
      guard let code: Int32 = IntegerText.value(argument.trimmingWhitespace()), (0...255).contains(code) else {
        throw fail(argumentStart, "'exit' needs a status from 0 to 255, e.g. exit(3)")
      }
      return .exit(code: code)
    case "return":
      guard let argument else { return .returnError(errno: ErrnoNames.value(of: "EIO")!) }
      guard let value = ErrnoNames.value(of: argument.trimmingWhitespace()) else {
        throw fail(argumentStart, "'return' needs an errno name or number, e.g. return(ENOSPC), not '\(argument)'")
      }
      return .returnError(errno: value)
    case "segv": return try noArgument(.segv)
    case "bus": return try noArgument(.bus)
    case "fpe": return try noArgument(.fpe)
    case "abort": return try noArgument(.abort)
    case "trap": return try noArgument(.trap)
    case "fatal": return try noArgument(.fatal)
    case "unwrap": return try noArgument(.unwrap)
    case "overflow": return try noArgument(.overflow)
    case "oob": return try noArgument(.outOfBounds)
    case "stackoverflow": return try noArgument(.stackOverflow)
    case "smash": return try noArgument(.smashedStack)
    case "kill": return try noArgument(.kill)
    case "oom":
      guard let argument else { return .oom(megabytes: FailpointAction.defaultOOMMegabytes) }
      guard let megabytes: Int = IntegerText.value(argument.trimmingWhitespace()), megabytes > 0 else {
        throw fail(argumentStart, "'oom' takes the most MiB to allocate, e.g. oom(512)")
      }
      return .oom(megabytes: megabytes)
    default:  // "thread"
      guard let argument, !argument.trimmingWhitespace().isEmpty, let open else {
        throw fail(argumentStart, "'thread' needs an action to run, e.g. thread(segv)")
      }
      let inner = try parseAction(chars, trimmed(chars, open + 1..<range.upperBound - 1), whole: whole)
      return .thread(inner)
    }
  }

  private static func isNameCharacter(_ character: Character) -> Bool {
    character.isLetter || character.isNumber || "._-:/*".contains(character)
  }

  private static func trimmed(_ chars: [Character], _ range: Range<Int>) -> Range<Int> {
    var lower = range.lowerBound
    var upper = range.upperBound
    while lower < upper, chars[lower].isWhitespace { lower += 1 }
    while upper > lower, chars[upper - 1].isWhitespace { upper -= 1 }
    return lower..<upper
  }
}

extension String {
  func trimmingWhitespace() -> String {
    String(drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed())
  }
}
