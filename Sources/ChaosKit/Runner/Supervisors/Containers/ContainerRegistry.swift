import Foundation
import Synchronization

/// Every container the harness created and has not removed, by the pid of its `runc run`, so
/// stops go through the runtime and an interrupt removes them all.
final class ContainerRegistry: Sendable {
  /// The process-wide registry.
  static let shared = ContainerRegistry()

  private struct State {
    var containers: [String: RuntimeContainer] = [:]
    var byPid: [pid_t: RuntimeContainer] = [:]
    var next = 0
    var cancelled = false
  }

  private let state = Mutex(State())

  /// A container id no other harness process uses: `chaos-<harness pid>-<n>`.
  func newID() -> String {
    state.withLock { state in
      state.next += 1
      return "chaos-\(getpid())-\(state.next)"
    }
  }

  /// Records a container; false once cancelled (it must not be made).
  func add(_ container: RuntimeContainer) -> Bool {
    state.withLock { state in
      guard !state.cancelled else { return false }
      state.containers[container.id] = container
      return true
    }
  }

  /// Records the pid of the container's `runc run`.
  func started(_ container: RuntimeContainer, pid: pid_t) {
    state.withLock { $0.byPid[pid] = container }
  }

  /// Forgets a removed container.
  func remove(_ container: RuntimeContainer) {
    state.withLock { state in
      state.containers[container.id] = nil
      state.byPid = state.byPid.filter { $0.value !== container }
    }
  }

  /// The container whose `runc run` is `pid`.
  func container(of pid: pid_t) -> RuntimeContainer? {
    state.withLock { $0.byPid[pid] }
  }

  /// Sends `signal` to the container that `pid` runs, through the runtime (`runc kill`); false
  /// when `pid` runs none (the caller signals the process itself).
  func signal(_ pid: pid_t, _ signal: Int32) -> Bool {
    guard let container = container(of: pid) else { return false }
    container.signal(signal)
    return true
  }

  /// Kills and removes every container (an interrupt), and refuses new ones.
  func removeAll() {
    let containers = state.withLock { state in
      state.cancelled = true
      return Array(state.containers.values)
    }
    for container in containers { container.finish(nil) }
  }
}
