import Foundation
import Synchronization

/// Every process group the harness started and has not reaped, so an interrupt can kill them
/// all. Spawning and cancelling take the same lock: no child starts after a cancel.
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

  /// Runs `spawn` (which returns the new group's pid, or nil) under the lock and records it.
  package func register(_ spawn: () -> pid_t?) -> pid_t? {
    state.withLock { state in
      guard !state.cancelled, let pid = spawn() else { return nil }
      state.groups.insert(pid)
      return pid
    }
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
    for group in groups { kill(-group, SIGKILL) }
    for group in groups {
      var status: Int32 = 0
      waitpid(group, &status, 0)
    }
    return groups.count
  }
}
