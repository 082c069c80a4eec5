import Foundation

/// A real OCI runtime for a scenario's launches (`runtime:`, `memory:`, `pids:`, `init:` at the
/// top of a scenario, in a launch, or `runtime:` and `resources.limits` in `kubernetes:`).
/// Unlike `container: true`, which the harness plays with its own namespaces, each launch is a
/// container the runtime creates, limits with cgroups, and removes.
package struct RuntimeSettings: Sendable, Equatable {
  /// The runtimes the harness can drive. (crun 1.8, Debian 12's, has no `run --keep`, which
  /// the harness needs to read the cgroup of a container that ended.)
  package enum Runtime: String, Sendable, CaseIterable {
    case runc
  }

  /// An init the runtime starts as PID 1 in front of the target, as `docker run --init` does.
  package enum InitProcess: String, Sendable, CaseIterable {
    case tini
    case dumbInit = "dumb-init"
  }

  /// The runtime (nil: no runtime at this level).
  package var runtime: Runtime?
  /// `linux.resources.memory.limit`, in bytes.
  package var memoryBytes: Int64?
  /// `linux.resources.pids.limit`.
  package var pids: Int64?
  /// The init in front of the target (nil: the target is PID 1).
  package var initProcess: InitProcess?
  /// The line of the first of these keys (0: none given), for errors about the runtime.
  package var line = 0

  package init() {}

  /// Whether any key was given.
  package var isEmpty: Bool { self == RuntimeSettings() }

  /// `self`'s keys over `base`'s: a launch's settings over the scenario's.
  package func over(_ base: RuntimeSettings) -> RuntimeSettings {
    var merged = base
    if let runtime { merged.runtime = runtime }
    if let memoryBytes { merged.memoryBytes = memoryBytes }
    if let pids { merged.pids = pids }
    if let initProcess { merged.initProcess = initProcess }
    if line != 0 { merged.line = line }
    return merged
  }
}
