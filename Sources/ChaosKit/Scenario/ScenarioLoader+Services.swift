import Foundation
import Yams

/// `services:`, at the top (what runs) and in a launch (which are down for it).
extension ScenarioLoader {
  /// Keys allowed in an entry of `services`.
  public static let serviceKeys = [
    "name", "command", "setup", "ready", "ready_timeout", "user", "env", "ports", "stop_signal", "stop_timeout",
  ]

  /// `services: [{ name: postgres, command: [...], ready: tcp://127.0.0.1:${CHAOS_SERVICE_PORT} }]`.
  static func services(_ node: Node, reader: NodeReader) throws(ScenarioError) -> [ServiceSpec] {
    var specs: [ServiceSpec] = []
    for entry in try reader.sequence(node, what: "services") {
      let spec = try service(entry, reader: reader)
      if specs.contains(where: { $0.name == spec.name }) {
        throw reader.error(entry, "a second service named '\(spec.name)' (each name once)")
      }
      specs.append(spec)
    }
    return specs
  }

  private static func service(_ node: Node, reader: NodeReader) throws(ScenarioError) -> ServiceSpec {
    let map = try reader.mapping(node, keys: serviceKeys, what: "service")
    guard let nameNode = map["name"], let commandNode = map["command"] else {
      throw reader.error(node, "a service needs 'name' and 'command' (e.g. { name: postgres, command: [postgres, …] })")
    }
    let name = try word(nameNode, what: "service name", reader: reader)
    var spec = ServiceSpec(
      name: name, command: try argv(commandNode, what: "command", reader: reader),
      line: node.mark?.line ?? 0)
    if let list = map["setup"] {
      for entry in try reader.sequence(list, what: "setup") {
        spec.setup.append(try argv(entry, what: "setup command", reader: reader))
      }
    }
    if let readyNode = map["ready"] {
      let text = try reader.string(readyNode, what: "ready")
      // Checked with the placeholders filled in, so a malformed URL fails at load.
      let sample = text.replacingOccurrences(of: #"\$\{CHAOS_[A-Z0-9_]+\}"#, with: "1", options: .regularExpression)
      if case .failure(let failure) = ReadinessCheck.parse(sample) {
        throw reader.error(readyNode, "ready: \(failure)")
      }
      spec.ready = text
    }
    if let timeout = map["ready_timeout"] { spec.readyTimeout = try reader.duration(timeout, what: "ready_timeout") }
    if let user = map["user"] { spec.user = try runAs(user, reader: reader) }
    if let env = map["env"] { spec.environment = try reader.stringMap(env, what: "env") }
    if let ports = map["ports"] {
      for port in try reader.sequence(ports, what: "ports") {
        let portName = try word(port, what: "port name", reader: reader)
        if spec.ports.contains(portName) { throw reader.error(port, "port '\(portName)' named twice") }
        spec.ports.append(portName)
      }
    }
    if let signal = map["stop_signal"] { spec.stopSignal = try reader.signal(signal) }
    if let timeout = map["stop_timeout"] { spec.stopTimeout = try reader.duration(timeout, what: "stop_timeout") }
    return spec
  }

  /// A launch's `services: { postgres: down, prometheus: up }`, checked against the scenario's.
  static func serviceStates(
    _ node: Node, declared: [ServiceSpec], reader: NodeReader
  ) throws(ScenarioError) -> [String: ServiceState] {
    let names = declared.map(\.name)
    guard !names.isEmpty else {
      throw reader.error(node, "a launch's 'services' needs the scenario's 'services:' at the top level")
    }
    let map = try reader.mapping(node, keys: names, what: "a launch's services")
    var states: [String: ServiceState] = [:]
    for (name, value) in map {
      let text = try reader.string(value, what: name)
      guard let state = ServiceState(rawValue: text) else {
        throw reader.error(value, "unknown service state '\(text)' for \(name) (known: up, down)")
      }
      states[name] = state
    }
    return states
  }

  /// A word of lowercase letters, digits, `-` and `_`.
  private static func word(_ node: Node, what: String, reader: NodeReader) throws(ScenarioError) -> String {
    let text = try reader.string(node, what: what)
    let allowed = text.allSatisfy { ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "-" || $0 == "_" }
    guard !text.isEmpty, allowed else {
      throw reader.error(node, "\(what) '\(text)' must be a word of lowercase letters, digits, '-' and '_'")
    }
    return text
  }

  /// A non-empty list of strings.
  private static func argv(_ node: Node, what: String, reader: NodeReader) throws(ScenarioError) -> [String] {
    var words: [String] = []
    for item in try reader.sequence(node, what: what) { words.append(try reader.string(item, what: what)) }
    if words.isEmpty { throw reader.error(node, "'\(what)' must name a program: an empty list") }
    return words
  }
}
