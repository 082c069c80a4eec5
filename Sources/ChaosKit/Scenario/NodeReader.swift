import Foundation
import Yams

/// Typed, located reads of YAML nodes: every mistake becomes a `ScenarioError` at the node.
struct NodeReader {
  let path: String

  func error(_ node: Node, _ message: String) -> ScenarioError {
    ScenarioError(path: path, line: node.mark?.line ?? 0, column: node.mark?.column ?? 0, message: message)
  }

  func mapping(_ node: Node, keys: [String], what: String) throws(ScenarioError) -> [String: Node] {
    guard case .mapping(let mapping) = node else { throw error(node, "'\(what)' must be a mapping") }
    var result: [String: Node] = [:]
    for (keyNode, value) in mapping {
      guard let key = keyNode.scalar?.string else { throw error(keyNode, "keys of '\(what)' must be strings") }
      guard keys.contains(key) else {
        throw error(keyNode, "unknown key '\(key)' in \(what) (known: \(keys.joined(separator: ", ")))")
      }
      if result[key] != nil { throw error(keyNode, "duplicate key '\(key)' in \(what)") }
      result[key] = value
    }
    return result
  }

  func sequence(_ node: Node, what: String) throws(ScenarioError) -> [Node] {
    guard case .sequence(let sequence) = node else { throw error(node, "'\(what)' must be a list") }
    return Array(sequence)
  }

  func string(_ node: Node, what: String) throws(ScenarioError) -> String {
    guard case .scalar(let scalar) = node else { throw error(node, "'\(what)' must be a string") }
    return scalar.string
  }

  func integer(_ node: Node, what: String, minimum: Int) throws(ScenarioError) -> Int {
    guard case .scalar(let scalar) = node, let value = Int(scalar.string) else {
      throw error(node, "'\(what)' must be a whole number")
    }
    guard value >= minimum else { throw error(node, "'\(what)' must be at least \(minimum), not \(value)") }
    return value
  }

  func number(_ node: Node, what: String) throws(ScenarioError) -> Double {
    guard case .scalar(let scalar) = node, let value = Double(scalar.string), value >= 0 else {
      throw error(node, "'\(what)' must be a non-negative number")
    }
    return value
  }

  func bool(_ node: Node, what: String) throws(ScenarioError) -> Bool {
    guard case .scalar(let scalar) = node, let value = Bool.construct(from: scalar) else {
      throw error(node, "'\(what)' must be true or false")
    }
    return value
  }

  /// `10s`, `500ms`, `2m`, `1h` or a plain number of seconds (`DurationText`); more than 0
  /// unless `zeroAllowed`, at most an hour.
  func duration(_ node: Node, what: String = "timeout", zeroAllowed: Bool = false) throws(ScenarioError) -> Double {
    guard case .scalar(let scalar) = node else { throw error(node, "'\(what)' must be a duration like 10s or 500ms") }
    let text = scalar.string.trimmingCharacters(in: .whitespaces)
    guard let seconds = DurationText.seconds(text), seconds > 0 || (zeroAllowed && seconds == 0), seconds <= 3600
    else {
      let field = what == "timeout" ? "" : " for '\(what)'"
      let least = zeroAllowed ? "at least 0" : "more than 0"
      throw error(node, "bad duration '\(text)'\(field) (expected e.g. 10s, 500ms, 2m, 1h; \(least), at most 1 hour)")
    }
    return seconds
  }

  func signal(_ node: Node) throws(ScenarioError) -> Int32 {
    let text = try string(node, what: "signal")
    guard let number = Signals.number(text) else {
      throw error(node, "unknown signal '\(text)' (known: \(Signals.names.joined(separator: ", ")))")
    }
    return number
  }

  func stringMap(_ node: Node, what: String) throws(ScenarioError) -> [String: String] {
    guard case .mapping(let mapping) = node else { throw error(node, "'\(what)' must be a mapping of strings") }
    var result: [String: String] = [:]
    for (key, value) in mapping {
      result[try string(key, what: "\(what) key")] = try string(value, what: "\(what) value")
    }
    return result
  }

  /// Any YAML value as JSON (for `app`, which becomes `CHAOS_APP`).
  func object(_ node: Node, what: String) throws(ScenarioError) -> JSONValue {
    guard case .mapping = node else { throw error(node, "'\(what)' must be a mapping") }
    return try json(node)
  }

  func json(_ node: Node) throws(ScenarioError) -> JSONValue {
    switch node {
    case .scalar(let scalar):
      if scalar.style == .plain {
        if scalar.string == "null" || scalar.string == "~" { return .null }
        if let value = Bool.construct(from: scalar) { return .bool(value) }
        if let value = Int(scalar.string) { return .number(Double(value)) }
        if let value = Double(scalar.string) { return .number(value) }
      }
      return .string(scalar.string)
    case .sequence(let sequence):
      var items: [JSONValue] = []
      for item in sequence { items.append(try json(item)) }
      return .array(items)
    case .mapping(let mapping):
      var fields: [String: JSONValue] = [:]
      for (key, value) in mapping { fields[try string(key, what: "key")] = try json(value) }
      return .object(fields)
    case .alias:
      throw error(node, "YAML aliases are not supported in scenarios")
    }
  }

  /// `task_start` or `{event: task_start, task: network}`.
  func eventPattern(_ node: Node, counted: Bool = false) throws(ScenarioError) -> EventPattern {
    if case .scalar(let scalar) = node { return EventPattern(name: scalar.string, fields: [:]) }
    guard case .object(var fields) = try json(node), case .string(let name)? = fields["event"] else {
      throw error(node, "an event is a name or a mapping with an 'event' key")
    }
    fields["event"] = nil
    var pattern = EventPattern(name: name, fields: fields)
    if let times = fields["times"] {
      guard counted else { throw error(node, "'times' belongs to an entry of 'events', not here") }
      guard let number = times.int, number >= 1 else {
        throw error(
          node, "times must be a whole number of at least 1 (no such event at all is 'no_events'), not \(times)")
      }
      pattern.fields["times"] = nil
      pattern.times = number
    }
    return pattern
  }
}
