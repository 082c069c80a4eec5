import Yams

/// `dependency:`, at the top (the listener) and in a launch (its state for that launch).
extension ScenarioLoader {
  /// Keys allowed in the top-level `dependency`.
  public static let dependencyKeys = ["name"]
  /// Keys allowed in a launch's `dependency` when it is a mapping.
  public static let launchDependencyKeys = ["down_for"]

  /// `dependency: { name: backend }`.
  static func dependency(_ node: Node, reader: NodeReader) throws(ScenarioError) -> DependencySpec {
    let map = try reader.mapping(node, keys: dependencyKeys, what: "dependency")
    guard let nameNode = map["name"] else {
      throw reader.error(node, "'dependency' needs 'name' (e.g. dependency: { name: postgres })")
    }
    let name = try reader.string(nameNode, what: "name")
    if name.isEmpty || name.contains(where: { $0.isWhitespace }) {
      throw reader.error(nameNode, "dependency name '\(name)' must be a non-empty word without spaces")
    }
    return DependencySpec(name: name, line: node.mark?.line ?? 0)
  }

  /// A launch's `dependency: up | down | { down_for: 2s }`.
  static func dependencyState(_ node: Node, reader: NodeReader) throws(ScenarioError) -> DependencyState {
    if case .scalar(let scalar) = node {
      switch scalar.string {
      case "up": return .up
      case "down": return .down
      default:
        throw reader.error(
          node, "unknown dependency state '\(scalar.string)' (known: up, down, { down_for: 2s })")
      }
    }
    let map = try reader.mapping(node, keys: launchDependencyKeys, what: "dependency")
    guard let duration = map["down_for"] else {
      throw reader.error(node, "a launch's 'dependency' is up, down or { down_for: 2s }")
    }
    return .downFor(try reader.duration(duration, what: "down_for"))
  }

  /// A launch's `dependency:` needs the scenario's: there is nothing to take down otherwise.
  static func checkDependencyDeclared(
    _ top: [String: Node], launchNodes: [Node], reader: NodeReader
  ) throws(ScenarioError) {
    guard top["dependency"] == nil else { return }
    for node in launchNodes {
      if case .mapping(let mapping) = node, let key = mapping.keys.first(where: { $0.scalar?.string == "dependency" }),
        let value = mapping[key]
      {
        throw reader.error(
          value, "a launch's 'dependency' needs the scenario's 'dependency: { name: … }' at the top level")
      }
    }
  }
}
