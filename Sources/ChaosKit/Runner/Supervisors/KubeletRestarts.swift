import Failpoints
import Foundation

/// The kubelet's restarts between a scenario's launches (`kubernetes:`): whether the restart
/// policy restarts the container that just ended, and the CrashLoopBackOff delay before it.
struct KubeletRestarts {
  /// Restarts since the back-off was last reset.
  private var sinceReset = 0
  /// Every restart so far (the container's restart count).
  private(set) var total = 0

  enum Decision: Equatable {
    /// Restart after `delay` real seconds; this is restart `number` of the container.
    case restart(number: Int, delay: Double)
    /// The kubelet would not restart it: why.
    case none(String)
  }

  /// What follows `previous` under `spec`: Kubernetes counts every exit as a restart under
  /// `Always` (exit 0 included), only failures under `OnFailure`, none under `Never`; a
  /// container that ran `backoffReset` resets the back-off.
  mutating func next(after previous: ProcessResult, spec: KubeletSpec) -> Decision {
    let cleanExit = previous.end == .exited(0)
    switch spec.restartPolicy {
    case .never:
      return .none("restart_policy Never: the kubelet does not restart the container")
    case .onFailure where cleanExit:
      return .none(
        "restart_policy OnFailure: the kubelet does not restart a container that exited 0 (launch \(previous.launch) did), so this launch never starts"
      )
    default:
      break
    }
    if previous.durationMilliseconds / 1000 >= spec.backoffReset * spec.timeScale { sinceReset = 0 }
    sinceReset += 1
    total += 1
    return .restart(number: total, delay: spec.backoff(beforeRestart: sinceReset))
  }

  /// Waits `seconds`, in steps, so that Ctrl-C ends the wait; false when interrupted.
  static func sleep(_ seconds: Double) -> Bool {
    let end = MonotonicClock.nanoseconds() + UInt64(seconds * 1e9)
    while !ChildRegistry.shared.isCancelled, MonotonicClock.sleepStep(until: end, atMost: 20_000) {}
    return !ChildRegistry.shared.isCancelled
  }
}
