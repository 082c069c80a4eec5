import Failpoints
import Foundation
import Synchronization

/// The failpoints a target declares, asked with `CHAOS_LIST_FAILPOINTS=1` (Docs/Protocol.md),
/// so a misspelt name in a scenario is reported at its line before anything runs.
package enum TargetFailpoints {
  /// A target's answer.
  package struct Listing: Sendable, Equatable {
    /// Declared names; a trailing `*` stands for a prefix (`life.*`).
    package var failpoints: [String]
    /// The protocol version the target speaks.
    package var protocolVersion: Int
    /// Whether it reads `CHAOS_APP` (protocol 2 `accepts_app`; protocol 1 targets are assumed
    /// to, as the reference app did), so `chaos explore` may generate configurations for it.
    package var acceptsApp: Bool
    /// Where failpoints outside the launch phase fire (protocol 2 `phases`: `repair`,
    /// `after_launch`); every other name fires during the launch.
    package var phases: [String: String] = [:]
  }

  private static let cache = Mutex([String: Listing?]())

  /// Runs `target` once (per target and `CHAOS_APP`, cached) with `CHAOS_LIST_FAILPOINTS=1`
  /// in a throwaway state directory. Nil when it does not list: it exited non-zero, printed
  /// no `{"failpoints": [...]}` object, or ran past 10 s.
  package static func list(target: String, app: String = "{}") -> Listing? {
    let key = target + "\u{0}" + app
    if let cached = cache.withLock({ $0[key] }) { return cached }
    let asked = RunProfile.start()
    let listing = ask(target: target, app: app)
    RunProfile.add("failpoint listing (a CHAOS_LIST_FAILPOINTS run)", since: asked)
    cache.withLock { $0[key] = listing }
    return listing
  }

  /// The first name in `spec` (already parsed at load) that `listing` does not declare.
  /// Cached: every scenario of a suite asks for its launches' specs, mostly the same few.
  package static func firstUndeclared(in spec: String, listing: Listing) -> String? {
    let key = spec + "\u{0}" + listing.failpoints.joined(separator: ",")
    if let known = undeclared.withLock({ $0[key] }) { return known }
    let names = (try? FailpointSpecParser.parse(spec))?.map(\.name) ?? []
    let first = names.first { !FailpointRegistry.matches($0, listing.failpoints) }
    undeclared.withLock { $0[key] = .some(first) }
    return first
  }

  private static let undeclared = Mutex([String: String?]())

  private static func ask(target: String, app: String) -> Listing? {
    let scratch = NSTemporaryDirectory() + "chaos-list-\(getpid())-\(UUID().uuidString.prefix(8))"
    defer { try? FileManager.default.removeItem(atPath: scratch) }
    guard
      (try? FileManager.default.createDirectory(atPath: scratch + "/state", withIntermediateDirectories: true))
        != nil
    else { return nil }
    let inherited = ProcessInfo.processInfo.environment
    let launcher = ProcessLauncher(
      executable: target,
      environment: [
        "PATH": inherited["PATH"] ?? "/usr/bin:/bin", "HOME": inherited["HOME"] ?? "/root",
        "CHAOS_LIST_FAILPOINTS": "1", "CHAOS_APP": app, "CHAOS_STATE_DIR": scratch + "/state",
        "CHAOS_EVENTS": scratch + "/events.ndjson", "CHAOS_FAILPOINTS": "", "SWIFT_BACKTRACE": "enable=no",
      ],
      stdoutPath: scratch + "/stdout", stderrPath: "/dev/null")
    guard let pid = try? launcher.spawn(), ProcessLauncher.wait(pid, timeout: 10) == .exited(0),
      let data = FileManager.default.contents(atPath: scratch + "/stdout"),
      let object = try? JSONDecoder().decode([String: JSONValue].self, from: data),
      case .array(let names)? = object["failpoints"]
    else { return nil }
    let version = object["protocol"]?.int ?? 1
    var phases: [String: String] = [:]
    if case .object(let declared)? = object["phases"] {
      for (name, phase) in declared { if let phase = phase.string { phases[name] = phase } }
    }
    return Listing(
      failpoints: names.compactMap(\.string), protocolVersion: version,
      acceptsApp: object["accepts_app"]?.bool ?? (version < 2), phases: phases)
  }
}
