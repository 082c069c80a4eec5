import Failpoints
import Foundation
import Yams

/// A launch's `before:`: what the harness does to the state before the launch.
extension ScenarioLoader {
  static func setup(_ node: Node, reader: NodeReader) throws(ScenarioError) -> SetupAction {
    let map = try reader.mapping(node, keys: setupKeys, what: "before entry")
    if let commandNode = map["command"] {
      guard map.count == 1 || (map.count == 2 && map["user"] != nil) else {
        throw reader.error(node, "a 'before' command may have 'user' beside it, nothing else")
      }
      let arguments = try reader.sequence(commandNode, what: "command").map { node throws(ScenarioError) in
        try reader.string(node, what: "command argument")
      }
      if arguments.first?.isEmpty ?? true {
        throw reader.error(commandNode, "'command' must be a non-empty argv list, e.g. [\"sh\", \"-c\", \"...\"]")
      }
      let user = try map["user"].map { node throws(ScenarioError) in try runAs(node, reader: reader) }
      return .command(arguments, user: user, line: commandNode.mark?.line ?? 0)
    }
    if let stray = map["user"] { throw reader.error(stray, "'user' in 'before' goes with 'command'") }
    guard map.count == 1, let (key, value) = map.first else {
      throw reader.error(node, "each 'before' entry has exactly one of: \(setupKeys.joined(separator: ", "))")
    }
    switch key {
    case "write_state": return .writeState(try reader.string(value, what: "write_state"))
    case "write_file":
      let fields = try reader.mapping(value, keys: writeFileKeys, what: "write_file")
      guard let pathNode = fields["path"], let textNode = fields["text"] else {
        throw reader.error(value, "write_file needs 'path' (relative to the state directory) and 'text'")
      }
      let relative = try reader.string(pathNode, what: "path")
      if relative.hasPrefix("/") || relative.split(separator: "/").contains("..") || relative.isEmpty {
        throw reader.error(
          pathNode, "write_file path '\(relative)' must stay inside the state directory (no '/' start, no '..')")
      }
      return .writeFile(path: relative, text: try reader.string(textNode, what: "text"))
    case "edit_boot_id": return .editBootID(try reader.string(value, what: "edit_boot_id"))
    case "reuse_pid":
      guard try reader.bool(value, what: key) else { throw reader.error(value, "'\(key)' can only be true") }
      return .reusePid
    case "unwritable_state_dir":
      guard try reader.bool(value, what: key) else { throw reader.error(value, "'\(key)' can only be true") }
      return .unwritableStateDirectory
    default:
      guard try reader.bool(value, what: key) else { throw reader.error(value, "'\(key)' can only be true") }
      return .newBinary
    }
  }
}
