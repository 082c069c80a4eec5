import Failpoints
import Foundation
import LaunchProtection

/// The harness stopping a daemon (`daemon:` in a scenario) as a service manager does once the
/// launch finished: SIGTERM to the process, then SIGKILL to its group when it has not exited
/// within the stop timeout (`StopEscalation`, recorded with `reason: stop`, `stop-timeout`).
final class DaemonStop {
  let spec: DaemonSpec
  private let eventsPath: String
  private var finishedAt: UInt64?
  private var escalation: StopEscalation

  init(spec: DaemonSpec, pid: pid_t, eventsPath: String) {
    self.spec = spec
    self.eventsPath = eventsPath
    escalation = StopEscalation(pid: pid, eventsPath: eventsPath, timeout: spec.stopTimeout)
  }

  /// The SIGTERM was sent.
  var stopped: Bool { escalation.begun }

  /// Called while the harness waits; `requestsDone` holds the stop until the launch's requests ran.
  func tick(requestsDone: Bool) {
    guard !escalation.begun else {
      escalation.tick()
      return
    }
    let now = MonotonicClock.nanoseconds()
    if finishedAt == nil, EventPeek.contains("launching_finished", path: eventsPath) { finishedAt = now }
    guard let finishedAt, requestsDone, now >= finishedAt + UInt64(spec.stopAfter * 1e9) else { return }
    escalation.begin(SIGTERM, reason: "stop")
  }
}
