import Failpoints
import Foundation
import LaunchProtection

/// How the harness stops a process as a service manager does (`supervisor:` timeouts,
/// `daemon:`): a signal now, then SIGKILL to its whole group once `timeout` passed. Both are
/// recorded as `supervisor` events in the process's events file, before the signal is sent.
struct StopEscalation {
  let pid: pid_t
  let eventsPath: String
  /// Who stops it, for the events' `source`.
  var source = "supervisor"
  /// `TimeoutStopSec`: how long the process has to exit after the first signal.
  let timeout: Double
  private var killAt: UInt64?

  init(pid: pid_t, eventsPath: String, timeout: Double) {
    self.pid = pid
    self.eventsPath = eventsPath
    self.timeout = timeout
  }

  /// The first signal was sent.
  var begun: Bool { killAt != nil }

  /// Sends `signal` for `reason` (e.g. `start-timeout`, `stop`) and starts the stop timeout.
  mutating func begin(_ signal: Int32, reason: String) {
    HarnessEvent.append(
      ["event": "supervisor", "action": Signals.name(signal), "reason": reason], pid: pid, to: eventsPath,
      source: source)
    // A container is stopped through its runtime (`runc kill`), as Docker and the kubelet do.
    if !ContainerRegistry.shared.signal(pid, signal) { kill(pid, signal) }
    killAt = MonotonicClock.nanoseconds() + UInt64(timeout * 1e9)
  }

  /// Called while the harness waits: SIGKILLs the group, once, when the stop timeout passed.
  mutating func tick() {
    guard let killAt, MonotonicClock.nanoseconds() > killAt else { return }
    HarnessEvent.append(
      ["event": "supervisor", "action": "SIGKILL", "reason": "stop-timeout"], pid: pid, to: eventsPath,
      source: source)
    // Through the runtime, the container's PID 1 dies and runc reports 137; killing runc's
    // group as well would lose that status.
    if !ContainerRegistry.shared.signal(pid, SIGKILL) { kill(-pid, SIGKILL) }
    self.killAt = .max
  }
}

/// Events the harness itself writes into a process's events file (`source: supervisor`, or
/// `kubelet`).
enum HarnessEvent {
  /// Appends one event line (O_APPEND, one write: lines never interleave with the target's).
  static func append(_ fields: [String: Any], pid: pid_t, to eventsPath: String, source: String = "supervisor") {
    var object = fields
    object["pid"] = Int(pid)
    object["t"] = MonotonicClock.nanoseconds()
    object["source"] = source
    guard var data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]) else { return }
    data.append(0x0A)
    let file = open(eventsPath, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
    guard file >= 0 else { return }
    _ = data.withUnsafeBytes { write(file, $0.baseAddress, $0.count) }
    close(file)
  }
}
