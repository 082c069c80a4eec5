/// Any JSON value, for event fields the harness reads generically.
public enum JSONValue: Codable, Sendable, Equatable, CustomStringConvertible {
  /// `null`.
  case null
  /// `true` or `false`.
  case bool(Bool)
  /// A number (JSON numbers are doubles).
  case number(Double)
  /// A string.
  case string(String)
  /// An array.
  case array([JSONValue])
  /// An object.
  case object([String: JSONValue])

  public init(from decoder: any Decoder) throws {
    let container = try decoder.singleValueContainer()
    if container.decodeNil() {
      self = .null
    } else if let value = try? container.decode(Bool.self) {
      self = .bool(value)
    } else if let value = try? container.decode(Double.self) {
      self = .number(value)
    } else if let value = try? container.decode(String.self) {
      self = .string(value)
    } else if let value = try? container.decode([JSONValue].self) {
      self = .array(value)
    } else {
      self = .object(try container.decode([String: JSONValue].self))
    }
  }

  public func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    switch self {
    case .null: try container.encodeNil()
    case .bool(let value): try container.encode(value)
    case .number(let value): try container.encode(value)
    case .string(let value): try container.encode(value)
    case .array(let value): try container.encode(value)
    case .object(let value): try container.encode(value)
    }
  }

  /// The value as an integer, when it is a whole number.
  public var int: Int? {
    if case .number(let value) = self, value.rounded() == value, abs(value) < 9.2e18 { return Int(value) }
    return nil
  }

  /// The value as a string.
  public var string: String? {
    if case .string(let value) = self { return value }
    return nil
  }

  /// Whether it is an object.
  public var isObject: Bool {
    if case .object = self { return true }
    return false
  }

  /// The elements, when it is an array.
  public var array: [JSONValue]? {
    if case .array(let value) = self { return value }
    return nil
  }

  /// The value as a boolean.
  public var bool: Bool? {
    if case .bool(let value) = self { return value }
    return nil
  }

  public var description: String {
    switch self {
    case .null: "null"
    case .bool(let value): String(value)
    case .number(let value): value.rounded() == value && abs(value) < 1e15 ? String(Int(value)) : String(value)
    case .string(let value): "\"\(value)\""
    case .array(let value): "[" + value.map(\.description).joined(separator: ", ") + "]"
    case .object(let value):
      "{" + value.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: ", ") + "}"
    }
  }
}
