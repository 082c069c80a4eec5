import Foundation
import LaunchProtection

/// The harness stopping a daemon (`daemon:` in a scenario) as a service manager does once the
/// launch finished: SIGTERM to the process, then SIGKILL to its group when it has not exited
/// within the stop timeout. Each is recorded as a `supervisor` event (`reason: stop`,
/// `stop-timeout`), so the events file shows who ended the process.
final class DaemonStop {
  let spec: DaemonSpec
  let pid: pid_t
  private let eventsPath: String
  private var finishedAt: UInt64?
  private var killAt: UInt64?
  /// The SIGTERM was sent.
  private(set) var stopped = false

  init(spec: DaemonSpec, pid: pid_t, eventsPath: String) {
    self.spec = spec
    self.pid = pid
    self.eventsPath = eventsPath
  }

  /// Called while the harness waits; `requestsDone` holds the stop until the launch's requests ran.
  func tick(requestsDone: Bool) {
    let now = MonotonicNanoseconds.now()
    if let killAt {
      if now > killAt {
        HarnessEvent.append(
          ["event": "supervisor", "action": "SIGKILL", "reason": "stop-timeout"], pid: pid, to: eventsPath)
        kill(-pid, SIGKILL)
        self.killAt = .max
      }
      return
    }
    if finishedAt == nil, EventPeek.contains("launching_finished", path: eventsPath) { finishedAt = now }
    guard let finishedAt, requestsDone, now >= finishedAt + UInt64(spec.stopAfter * 1e9) else { return }
    // Recorded before the signal, so the line is in the file whatever the target does next.
    HarnessEvent.append(["event": "supervisor", "action": "SIGTERM", "reason": "stop"], pid: pid, to: eventsPath)
    stopped = true
    kill(pid, SIGTERM)
    killAt = now + UInt64(spec.stopTimeout * 1e9)
  }
}
