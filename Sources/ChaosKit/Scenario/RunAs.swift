import Foundation
import Yams

/// `user:` of a launch or a command: the user (and group) the harness runs it as, so that a
/// scenario can play another local user against the state directory (the Security article's
/// threat model). Needs the harness to run as root.
public struct RunAs: Sendable, Equatable, CustomStringConvertible {
  /// The user id.
  public var uid: UInt32
  /// The group id (the user's primary group unless `user: name:group` names one).
  public var gid: UInt32
  /// What the scenario wrote, for messages.
  public var name: String

  /// A user by ids.
  public init(uid: UInt32, gid: UInt32, name: String) {
    self.uid = uid
    self.gid = gid
    self.name = name
  }

  public var description: String { "\(name) (uid \(uid), gid \(gid))" }

  /// Why a `user:` names no user.
  struct Unknown: Error {
    var reason: String
  }

  /// `nobody`, `65534`, `nobody:nogroup` or `65534:65534`: resolved with the machine's user
  /// and group database; nil with the reason when a name is unknown.
  static func resolve(_ text: String) -> Result<RunAs, Unknown> {
    let parts = text.split(separator: ":", maxSplits: 1).map(String.init)
    guard let userText = parts.first, !userText.isEmpty else { return .failure(Unknown(reason: "an empty user")) }
    var uid: UInt32
    var gid: UInt32
    if let number = UInt32(userText) {
      uid = number
      gid = getpwuid(number).map { $0.pointee.pw_gid } ?? number
    } else if let entry = getpwnam(userText) {
      uid = entry.pointee.pw_uid
      gid = entry.pointee.pw_gid
    } else {
      return .failure(Unknown(reason: "unknown user '\(userText)' (no such entry in the user database)"))
    }
    if parts.count == 2 {
      if let number = UInt32(parts[1]) {
        gid = number
      } else if let entry = getgrnam(parts[1]) {
        gid = entry.pointee.gr_gid
      } else {
        return .failure(Unknown(reason: "unknown group '\(parts[1])'"))
      }
    }
    return .success(RunAs(uid: uid, gid: gid, name: text))
  }
}

extension ScenarioLoader {
  /// `user:` of a launch or a command.
  static func runAs(_ node: Node, reader: NodeReader) throws(ScenarioError) -> RunAs {
    let text = try reader.string(node, what: "user")
    switch RunAs.resolve(text) {
    case .success(let user): return user
    case .failure(let unknown):
      throw reader.error(
        node, "user: \(unknown.reason); give a user name or uid, optionally ':group' (e.g. nobody:nogroup)")
    }
  }
}
