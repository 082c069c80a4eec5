import Foundation
import LaunchProtection
import TestSupport

/// Launches of the reference app (`chaos-target`) in child processes sharing one state
/// directory, for the rules that end or time the process: exhausted levels that exit, the
/// launch deadline.
struct ReferenceAppRuns {
  let directory = TemporaryDirectory("reference")
  let target = ChildProcess.product("chaos-target")

  var events: String { directory.file("events.ndjson") }

  private func environment(app: String, failpoints: String) -> [String: String] {
    [
      "CHAOS_STATE_DIR": directory.file("state"), "CHAOS_EVENTS": events, "CHAOS_FAILPOINTS": failpoints,
      "CHAOS_APP": app,
    ]
  }

  /// One launch, run to its end; `extra` is added to its environment (`NOTIFY_SOCKET`...).
  func run(app: String, failpoints: String = "", extra: [String: String] = [:], timeout: Double = 30) -> Termination? {
    ChildProcess.run(
      target, environment: environment(app: app, failpoints: failpoints).merging(extra) { $1 }, timeout: timeout)
  }

  /// One launch, left running.
  func spawn(app: String, failpoints: String = "", extra: [String: String] = [:]) -> pid_t {
    ChildProcess.spawn(target, environment: environment(app: app, failpoints: failpoints).merging(extra) { $1 })
  }

  /// Every event of every launch so far, in order.
  func all() -> [[String: Any]] { EventsFile.read(events) }

  /// The events named `name`.
  func named(_ name: String) -> [[String: Any]] { all().filter { $0["event"] as? String == name } }

  /// The count the last launch saw.
  var lastCount: Int? { named("launch").last?["count"] as? Int }

  /// The persisted state.
  func state() throws -> LaunchState? { try StateStore(directory: directory.file("state")).read() }
}
