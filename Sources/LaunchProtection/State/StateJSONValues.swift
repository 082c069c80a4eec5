/// The parser for other modules: ChaosKit builds its `JSONValue`s (event lines) from a
/// `Document`, so the project has one JSON grammar, with `JSONDecoder`'s leniencies (a comma
/// before a closing bracket, the first of repeated keys) and its nesting limit. Everything it
/// throws here is `.syntax(reason, offset:)`: why, and the byte offset where.
extension StateJSON.Document {
  /// Parses `bytes` as one JSON value with whitespace around it; nothing in it is read yet
  /// (`string(at:)` and `number(at:)` check what they read, as `JSONDecoder` checks).
  package init(parsing bytes: [UInt8]) throws(StateJSON.DecodeError) { try self.init(bytes) }

  /// The root value's node is 0; a container's members follow it, an object's as key and value
  /// nodes in turn.
  package func kind(at index: Int) -> StateJSON.Kind { nodes[index].kind }

  /// The node just past `index`'s value and everything in it: its next sibling's, if any.
  package func end(of index: Int) -> Int { nodes[index].next }

  /// The string (or key) at `index`, its escapes resolved; a syntax error for a string
  /// `JSONDecoder` refuses (a raw control character, a bad escape or surrogate, invalid UTF-8).
  package func string(at index: Int) throws(StateJSON.DecodeError) -> String {
    do {
      return try string(index, path: "")
    } catch {
      throw error.atSyntax(nodes[index].start)
    }
  }

  /// The number at `index` as the `Double` it rounds to; a syntax error outside RFC 8259's
  /// grammar or `Double`'s range (infinite, or a nonzero number that would read as 0), as for
  /// `JSONDecoder`.
  package func number(at index: Int) throws(StateJSON.DecodeError) -> Double {
    do {
      return try double(index, path: "")
    } catch {
      throw error.atSyntax(nodes[index].start)
    }
  }
}

extension StateJSON.DecodeError {
  /// Why, for another module's message: the reason of a syntax error, else the detail.
  package var reason: String {
    switch self {
    case .syntax(let reason, _): reason
    case .missing(let path): "missing field '\(path)'"
    case .wrongType(_, let detail): detail
    }
  }

  /// The byte offset of a syntax error; 0 for the others, which are no place in the text.
  package var offset: Int {
    if case .syntax(_, let offset) = self { offset } else { 0 }
  }

  /// A syntax error as it is; any other (a value out of range) as a syntax error at `offset`.
  fileprivate func atSyntax(_ offset: Int) -> Self {
    if case .syntax = self { self } else { .syntax(reason, offset: offset) }
  }
}
