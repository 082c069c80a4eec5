import Failpoints
import Foundation

/// What a protocol-2 target that does not take `CHAOS_APP` declares about itself, learnt from
/// one clean launch in a throwaway state directory: the `launch` event's `policy`, and whether
/// it stays up after `launching_finished` (a daemon, stopped here with SIGTERM).
package enum TargetDiscovery {
  /// Why the declaration could not be read.
  package struct Failure: Error, CustomStringConvertible, Sendable {
    package var description: String
  }

  /// Runs the target once and returns its declared policy as the model's configuration.
  package static func declaredPolicy(target: String, environment extra: [String: String] = [:]) throws(Failure)
    -> ExplorationApp
  {
    let scratch = NSTemporaryDirectory() + "chaos-discover-\(getpid())-\(UUID().uuidString.prefix(8))"
    defer { try? FileManager.default.removeItem(atPath: scratch) }
    try? FileManager.default.createDirectory(atPath: scratch + "/state", withIntermediateDirectories: true)
    let events = scratch + "/events.ndjson"
    let inherited = ProcessInfo.processInfo.environment
    var environment = [
      "PATH": inherited["PATH"] ?? "/usr/bin:/bin", "HOME": inherited["HOME"] ?? "/root",
      "CHAOS_STATE_DIR": scratch + "/state", "CHAOS_EVENTS": events, "CHAOS_FAILPOINTS": "",
      "SWIFT_BACKTRACE": "enable=no", "CHAOS_PORT": String(HTTPProbe.freePort() ?? 0),
    ]
    environment.merge(extra.mapValues { $0.replacingOccurrences(of: "${CHAOS_STATE_DIR}", with: scratch + "/state") }) {
      $1
    }
    let launcher = ProcessLauncher(
      executable: target, environment: environment, stdoutPath: scratch + "/stdout", stderrPath: scratch + "/stderr")
    let pid: pid_t
    do {
      pid = try launcher.spawn()
    } catch {
      throw Failure(description: "\(target): \(error)")
    }
    // Up to 10 s for launching_finished; then 0.5 s more tells a daemon from a program that exits.
    var finishedAt: UInt64?
    var daemon = false
    let end = ProcessLauncher.wait(pid, timeout: 15) {
      if finishedAt == nil, EventPeek.contains("launching_finished", path: events) {
        finishedAt = MonotonicClock.nanoseconds()
      }
      if let finishedAt, !daemon, MonotonicClock.nanoseconds() - finishedAt > 500_000_000 {
        daemon = true
        kill(pid, SIGTERM)
      }
    }
    guard finishedAt != nil else {
      throw Failure(description: "\(target): its clean launch did not reach launching_finished (it ended: \(end))")
    }
    guard let data = FileManager.default.contents(atPath: events),
      let launch = (try? EventDecoder.decode(data, path: events))?.events.first(where: { $0.name == "launch" })
    else { throw Failure(description: "\(target): no launch event in its events file") }
    guard case .object(let policy)? = launch.fields["policy"] else {
      throw Failure(
        description:
          "\(target): its launch event carries no policy (protocol 2, Docs/Protocol.md); a protocol 1 target must accept CHAOS_APP"
      )
    }
    return try app(from: policy, daemon: daemon, target: target)
  }

  /// The model's configuration from a declared `policy` object.
  static func app(from policy: [String: JSONValue], daemon: Bool, target: String) throws(Failure) -> ExplorationApp {
    var app = ExplorationApp(
      threshold: 1, levels: [], protectFinishes: policy["relaunches"]?.bool ?? true, lifeActions: [])
    switch policy["kind"]?.string {
    case "custom":
      app.customProtectsAt = (policy["protects_at"]?.array ?? []).compactMap(\.int)
    case "ladder":
      let levels = (policy["levels"]?.array ?? []).compactMap { level -> (name: String, at: Int)? in
        guard case .object(let fields) = level, let name = fields["name"]?.string, let at = fields["at"]?.int
        else { return nil }
        return (name, at)
      }
      guard !levels.isEmpty else { throw Failure(description: "\(target): a ladder policy with no levels") }
      app.levels = levels
    default:
      throw Failure(description: "\(target): policy kind must be ladder or custom")
    }
    if policy["exhausted"]?.string == "stay-degraded" { app.staysDegraded = true }
    if let exhausted = policy["exhausted"]?.string, exhausted.hasPrefix("exit("), exhausted.hasSuffix(")") {
      app.exhaustedExitStatus = Int32(exhausted.dropFirst(5).dropLast())
    }
    app.deadlineSeconds = policy["deadline_ms"]?.int.map { Double($0) / 1000 }
    app.ignoresTermination = policy["ignore_termination"]?.bool ?? true
    app.ignoresReboots = policy["ignore_reboots"]?.bool ?? true
    app.resetsOnNewBinary = policy["reset_on_new_binary"]?.bool ?? true
    app.declared = true
    app.daemon = daemon
    return app
  }
}
