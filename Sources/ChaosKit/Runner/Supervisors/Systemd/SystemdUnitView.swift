import Foundation

/// What systemd says of a unit at one moment (`systemctl show`).
struct SystemdUnitView: Sendable, Equatable {
  /// The properties read.
  static let properties = [
    "ActiveState", "SubState", "Result", "NRestarts", "MainPID", "ExecMainPID", "ExecMainCode", "ExecMainStatus",
    "ExecMainExitTimestampMonotonic", "StatusText", "InvocationID", "ControlGroup",
  ]
  /// States on the way to another: the view is read again until it leaves them.
  static let passing: Set<String> = [
    "deactivating", "stop", "stop-sigterm", "stop-sigkill", "stop-post", "final-sigterm", "final-sigkill",
    "final-watchdog", "stop-watchdog",
  ]

  var values: [String: String] = [:]

  init(text: String) {
    for line in text.split(separator: "\n") {
      guard let equals = line.firstIndex(of: "=") else { continue }
      values[String(line[..<equals])] = String(line[line.index(after: equals)...])
    }
  }

  subscript(_ name: String) -> String { values[name] ?? "" }
  var execMainPID: pid_t { pid_t(self["ExecMainPID"]) ?? 0 }
  /// The main process of `execMainPID` has ended.
  var mainExited: Bool { (UInt64(self["ExecMainExitTimestampMonotonic"]) ?? 0) != 0 }
  /// Still passing from one state to another (a stop in progress).
  var isPassing: Bool { Self.passing.contains(self["SubState"]) || self["ActiveState"] == "deactivating" }
  /// Stopped, but its control group not yet removed: a start now can fail with 219/CGROUP
  /// (seen once in 5 runs on cgroup v1, a start 0.27 s after a stop).
  var isClearing: Bool {
    ["inactive", "failed"].contains(self["ActiveState"]) && !self["ControlGroup"].isEmpty
  }

  /// How the main process ended, as the harness reports a process's end: `ExecMainCode` 1 is
  /// CLD_EXITED (the status is the exit code), 2 and 3 CLD_KILLED and CLD_DUMPED (a signal).
  var end: ProcessEnd {
    let status = Int32(self["ExecMainStatus"]) ?? 0
    return self["ExecMainCode"] == "1" ? .exited(status) : .signaled(status)
  }

  /// The view as `systemctl show` printed it, for the launch's artifacts.
  var text: String { Self.properties.map { "\($0)=\(self[$0])" }.joined(separator: "\n") + "\n" }
}
