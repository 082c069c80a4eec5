import Foundation
import Yams

/// One entry of a launch's `expect.files:`: a file or directory under the scenario's state
/// directory, checked once the launch's processes are gone —
/// `{ path: made/launch/launch-state.json, mode: "0600", type: file, owner: nobody }`.
///
/// `path` is relative to the state directory and may not leave it; its last component may hold
/// `*` and `?` (`crash-*.json`), which must then match at least one entry, and every match is
/// checked. `mode` is the permission bits as a quoted octal string (`"0600"`; set-id and sticky
/// bits count). `type` is `file`, `directory` or `symlink` (a link is not followed). `owner` is
/// a user name or uid. Every key but `path` is optional; the entry must exist either way.
package struct FileExpectation: Sendable, Equatable {
  /// The path relative to the state directory, as written.
  package var path: String
  /// The permission bits (`st_mode & 0o7777`); nil: not checked.
  package var mode: mode_t?
  /// `file`, `directory` or `symlink`; nil: not checked.
  package var type: String?
  /// The owning user; nil: not checked.
  package var owner: RunAs?
  /// The entry's line, for messages.
  package var line: Int

  /// The keys of an entry.
  package static let keys = ["path", "mode", "type", "owner"]
  /// The types `type:` accepts.
  package static let types = ["file", "directory", "symlink"]
}

extension FileExpectation {
  /// Reads `files:` of an `expect:` mapping.
  static func load(_ node: Node?, reader: NodeReader) throws(ScenarioError) -> [FileExpectation] {
    guard let node else { return [] }
    var entries: [FileExpectation] = []
    for entry in try reader.sequence(node, what: "files") {
      let map = try reader.mapping(entry, keys: keys, what: "files entry")
      guard let pathNode = map["path"] else { throw reader.error(entry, "files entry needs 'path'") }
      let path = try reader.string(pathNode, what: "path")
      if path.isEmpty || path.hasPrefix("/") || path.split(separator: "/").contains("..") {
        throw reader.error(
          pathNode,
          "files: path '\(path)' must be relative to the state directory and stay in it (no '/' first, no '..')")
      }
      if path.split(separator: "/").dropLast().contains(where: { $0.contains("*") || $0.contains("?") }) {
        throw reader.error(pathNode, "files: path '\(path)': only its last component may hold * or ?")
      }
      var expectation = FileExpectation(path: path, line: entry.mark?.line ?? 0)
      if let modeNode = map["mode"] {
        if case .scalar(let scalar) = modeNode, scalar.style == .plain {
          throw reader.error(
            modeNode,
            "files: mode must be a quoted octal string such as \"0600\" (YAML reads 0600 unquoted as a number)")
        }
        let text = try reader.string(modeNode, what: "mode")
        guard (3...4).contains(text.count), let bits = mode_t(text, radix: 8), bits <= 0o7777 else {
          throw reader.error(modeNode, "files: mode '\(text)' is not 3 or 4 octal digits such as \"0600\" or \"755\"")
        }
        expectation.mode = bits
      }
      if let typeNode = map["type"] {
        let type = try reader.string(typeNode, what: "type")
        guard types.contains(type) else {
          throw reader.error(typeNode, "files: unknown type '\(type)' (known: \(types.joined(separator: ", ")))")
        }
        expectation.type = type
      }
      if let ownerNode = map["owner"] {
        let text = try reader.string(ownerNode, what: "owner")
        switch RunAs.resolve(text) {
        case .success(let user): expectation.owner = user
        case .failure(let unknown): throw reader.error(ownerNode, "files: owner: \(unknown.reason)")
        }
      }
      entries.append(expectation)
    }
    return entries
  }
}
