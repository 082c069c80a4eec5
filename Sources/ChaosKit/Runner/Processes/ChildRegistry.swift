import Foundation
import Synchronization

/// Every process group the harness started and has not reaped, so an interrupt can kill them
/// all. A child is recorded right after it starts; one that starts while a cancel runs finds
/// the registry cancelled when it is recorded and is killed there, so none outlives a cancel.
package final class ChildRegistry: Sendable {
  /// The process-wide registry.
  package static let shared = ChildRegistry()

  private struct State {
    var groups: Set<pid_t> = []
    var cancelled = false
  }

  private let state = Mutex(State())

  /// Whether `cancelAll` was called.
  package var isCancelled: Bool { state.withLock { $0.cancelled } }

  /// Runs `spawn` (which returns the new group's pid, or nil) and records the group; nil
  /// (and the group killed and reaped) when the registry was cancelled meanwhile.
  ///
  /// Not under the lock: a spawn waits for its child to reach `exec`, which takes milliseconds
  /// when the child must create its output files on a busy file system, and the other jobs'
  /// spawns would wait behind it.
  package func register(_ spawn: () -> pid_t?) -> pid_t? {
    guard !isCancelled, let pid = spawn() else { return nil }
    let recorded = state.withLock { state -> Bool in
      guard !state.cancelled else { return false }
      state.groups.insert(pid)
      return true
    }
    guard recorded else {
      kill(-pid, SIGKILL)
      var status: Int32 = 0
      waitpid(pid, &status, 0)
      return nil
    }
    return pid
  }

  /// Forgets a reaped group.
  package func unregister(_ pid: pid_t) {
    _ = state.withLock { $0.groups.remove(pid) }
  }

  /// SIGKILLs every live group, reaps the group leaders, and refuses new children.
  /// Returns how many groups were killed.
  @discardableResult
  package func cancelAll() -> Int {
    let groups = state.withLock { state in
      state.cancelled = true
      return state.groups
    }
    // A service's descendants may have left its group (PostgreSQL's backends call setsid).
    ServiceRegistry.shared.killAll()
    for group in groups { kill(-group, SIGKILL) }
    for group in groups {
      var status: Int32 = 0
      waitpid(group, &status, 0)
    }
    // Killing `runc run` leaves its container running: the runtime removes those.
    ContainerRegistry.shared.removeAll()
    // Killing nspawn's group leaves its container's PID 1 running: each machine is killed itself.
    SystemdMachines.shared.killAll()
    return groups.count
  }
}
