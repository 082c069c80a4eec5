import Yams

/// One entry of a scenario's `requires:`: a privilege its target needs that the harness cannot
/// see from the other keys (the reference app's `state_directory_read_only` makes a bind
/// mount: `CAP_SYS_ADMIN`). A run without it skips the scenario, naming it.
package struct Requirement: Sendable, Equatable {
  /// `root`, or a capability name (`CAP_SYS_ADMIN`).
  package var privilege: String
  /// The entry's line, for the skip's reason.
  package var line: Int
}

extension ScenarioLoader {
  /// `requires: [CAP_SYS_ADMIN]`: each entry `root` or a capability name.
  static func requirements(_ node: Node?, reader: NodeReader) throws(ScenarioError) -> [Requirement] {
    guard let node else { return [] }
    var requirements: [Requirement] = []
    for entry in try reader.sequence(node, what: "requires") {
      let text = try reader.string(entry, what: "requires entry")
      guard Privileges.isKnown(text) else {
        throw reader.error(
          entry, "requires: unknown privilege '\(text)'; give root or a capability name such as CAP_SYS_ADMIN")
      }
      requirements.append(Requirement(privilege: text, line: entry.mark?.line ?? 0))
    }
    return requirements
  }
}
