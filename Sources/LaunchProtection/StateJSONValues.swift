/// The parser for other modules: ChaosKit builds its `JSONValue`s (event lines) from a
/// `Document`, so the project has one JSON grammar, with `JSONDecoder`'s leniencies (a comma
/// before a closing bracket, the first of repeated keys) and its nesting limit.
extension StateJSON {
  /// Where and why a text is not the JSON value it should be.
  package struct SyntaxError: Error, Equatable {
    /// What is wrong (`expected ':'`, `invalid escape`, `number 1e400 does not fit Double`).
    package var reason: String
    /// The byte offset in the text where it is wrong (0-based).
    package var offset: Int
  }
}

extension StateJSON.Document {
  /// Parses `bytes` as one JSON value with whitespace around it; nothing in it is read yet
  /// (`string(at:)` and `number(at:)` check what they read, as `JSONDecoder` checks).
  package init(parsing bytes: [UInt8]) throws(StateJSON.SyntaxError) {
    do {
      try self.init(bytes)
    } catch {
      throw Self.syntaxError(error, at: 0)
    }
  }

  /// The root value's node is 0; a container's members follow it, an object's as key and value
  /// nodes in turn.
  package func kind(at index: Int) -> StateJSON.Kind { nodes[index].kind }

  /// The node just past `index`'s value and everything in it: its next sibling's, if any.
  package func end(of index: Int) -> Int { nodes[index].next }

  /// The string (or key) at `index`, its escapes resolved; an error for a string `JSONDecoder`
  /// refuses (a raw control character, a bad escape or surrogate, invalid UTF-8).
  package func string(at index: Int) throws(StateJSON.SyntaxError) -> String {
    do {
      return try string(index, path: "")
    } catch {
      throw Self.syntaxError(error, at: nodes[index].start)
    }
  }

  /// The number at `index` as the `Double` it rounds to; an error outside RFC 8259's grammar or
  /// `Double`'s range (infinite, or a nonzero number that would read as 0), as for `JSONDecoder`.
  package func number(at index: Int) throws(StateJSON.SyntaxError) -> Double {
    do {
      return try double(index, path: "")
    } catch {
      throw Self.syntaxError(error, at: nodes[index].start)
    }
  }

  /// A syntax error keeps its own offset; any other (a value out of range) is at `offset`.
  private static func syntaxError(_ error: StateJSON.DecodeError, at offset: Int) -> StateJSON.SyntaxError {
    switch error {
    case .syntax(let reason, let at): StateJSON.SyntaxError(reason: reason, offset: at)
    case .missing(let path): StateJSON.SyntaxError(reason: "missing \(path)", offset: offset)
    case .wrongType(_, let detail): StateJSON.SyntaxError(reason: detail, offset: offset)
    }
  }
}
