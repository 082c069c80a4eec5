import ChaosKit
import Failpoints
import Foundation

/// Spawning and reaping a target for measurements: a blocking `waitpid` (no polling delay
/// in the measured time) under a watchdog that kills the group if it hangs.
struct BenchProcess {
  var target: String

  struct Run {
    var end: ProcessEnd
    /// CLOCK_MONOTONIC ns right after `waitpid` returned.
    var reapedAt: UInt64
    /// CLOCK_MONOTONIC ns right before `posix_spawn`.
    var spawnedAt: UInt64
    var events: [TargetEvent]
  }

  /// Runs the target once with a fresh events file; `app` is `CHAOS_APP`.
  func run(
    failpoints: String, app: String, swiftBacktrace: String = "enable=no", stateDirectory: String, events: String,
    readEvents: Bool = true
  ) throws -> Run {
    unlink(events)
    let environment = [
      "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin", "CHAOS_FAILPOINTS": failpoints,
      "CHAOS_APP": app, "CHAOS_STATE_DIR": stateDirectory, "CHAOS_EVENTS": events, "SWIFT_BACKTRACE": swiftBacktrace,
    ]
    let launcher = ProcessLauncher(
      executable: target, environment: environment, stdoutPath: "/dev/null", stderrPath: "/dev/null")
    let spawnedAt = MonotonicClock.nanoseconds()
    let pid = try launcher.spawn()
    let watchdog = DispatchWorkItem { kill(-pid, SIGKILL) }
    DispatchQueue.global().asyncAfter(deadline: .now() + 60, execute: watchdog)
    var status: Int32 = 0
    while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    let reapedAt = MonotonicClock.nanoseconds()
    watchdog.cancel()
    ChildRegistry.shared.unregister(pid)
    let end = ProcessEnd(waitStatus: status)
    let decoded = readEvents ? try EventDecoder.decode(path: events).events : []
    return Run(end: end, reapedAt: reapedAt, spawnedAt: spawnedAt, events: decoded)
  }
}
