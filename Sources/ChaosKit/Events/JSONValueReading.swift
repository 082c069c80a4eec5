import LaunchProtection

extension JSONValue {
  /// Reads one JSON text (RFC 8259) as a `JSONValue` through the state codec's parser, the
  /// project's one JSON parser: it accepts exactly what `JSONDecoder` accepts for a
  /// `JSONValue`, its leniencies included (a comma before a closing bracket, the first of two
  /// equal keys), as `JSONValueReadingTests` check against it on the events fuzz corpus and on
  /// mutated lines; what it refuses, it refuses with a cause and a byte offset.
  ///
  /// The harness decodes every event line of every launch, which `JSONDecoder` does slowly: it
  /// reaches a `JSONValue` by trying each type in turn and throwing for each miss (`Docs/BenchmarkHistory.md`).
  package init(parsing bytes: [UInt8]) throws(StateJSON.DecodeError) {
    let document = try StateJSON.Document(parsing: bytes)
    self = try Self.value(at: 0, in: document)
  }

  /// The value at node `index`, every string, key and number in it checked. Recursion is as
  /// deep as the nesting, which the parser bounds (512, as `JSONDecoder`).
  private static func value(at index: Int, in document: StateJSON.Document) throws(StateJSON.DecodeError)
    -> JSONValue
  {
    switch document.kind(at: index) {
    case .null: return .null
    case .true: return .bool(true)
    case .false: return .bool(false)
    case .number: return .number(try document.number(at: index))
    case .string: return .string(try document.string(at: index))
    case .array:
      var elements: [JSONValue] = []
      var element = index + 1
      while element < document.end(of: index) {
        elements.append(try value(at: element, in: document))
        element = document.end(of: element)
      }
      return .array(elements)
    case .object:
      var members: [String: JSONValue] = [:]
      var key = index + 1
      while key < document.end(of: index) {
        // The first of two equal keys counts, as in JSONDecoder, which does not read (or check
        // the strings and numbers of) a later one's value.
        let name = try document.string(at: key)
        if members[name] == nil { members[name] = try value(at: key + 1, in: document) }
        key = document.end(of: key + 1)
      }
      return .object(members)
    }
  }
}
