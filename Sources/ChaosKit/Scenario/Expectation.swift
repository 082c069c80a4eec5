import Foundation

/// How a launch ended, as a scenario's `outcome:` spells it (`crash`, `oom_killed`…).
///
/// A struct, not an enum, so that a later version can add an outcome without breaking a
/// caller's `switch`: keep a `default`. ``allCases`` lists the outcomes this version knows.
public struct Outcome: RawRepresentable, Hashable, Sendable, CaseIterable, Encodable, CustomStringConvertible {
  /// The spelling in scenarios, results and reports (`finished`, `oom_killed`…).
  public let rawValue: String

  /// The outcome spelled `rawValue`; nil when this version knows no such outcome.
  public init?(rawValue: String) {
    guard Self.allCases.contains(where: { $0.rawValue == rawValue }) else { return nil }
    self.rawValue = rawValue
  }

  private init(_ rawValue: String) { self.rawValue = rawValue }

  /// Reached `launching_finished` and exited 0.
  public static let finished = Outcome("finished")
  /// Died by a catchable signal.
  public static let crash = Outcome("crash")
  /// Died by SIGKILL that the watchdog did not send.
  public static let killed = Outcome("killed")
  /// Exited before finishing.
  public static let exit = Outcome("exit")
  /// The watchdog killed it.
  public static let timeout = Outcome("timeout")
  /// The kernel's OOM killer ended it in its container's memory cgroup (`runtime:` with a
  /// memory limit): exit status 137, what the kubelet reports as `OOMKilled`.
  public static let oomKilled = Outcome("oom_killed")

  /// Every outcome this version knows, in the order error messages list them.
  public static let allCases: [Outcome] = [.finished, .crash, .killed, .exit, .timeout, .oomKilled]

  /// The spelling (``rawValue``).
  public var description: String { rawValue }
}

/// The mode a launch reports in its `launch` event (protocol field `mode`).
public enum ReportedMode: String, Sendable, CaseIterable, Encodable {
  /// The normal launch ran.
  case normal
  /// Protect mode: the repair ran first.
  case protect
}

/// The expectations of a launch. Nil fields are not checked.
package struct Expectation: Sendable {
  /// `outcome`: how the launch ends.
  package var outcome: Outcome?
  /// `signal`: the signal that ended it.
  package var signal: Int32?
  /// `exit_code`: its exit status.
  package var exitCode: Int32?
  /// `count`: the count its `launch` event reports.
  package var count: Int?
  /// `mode`: `normal` or `protect`.
  package var mode: ReportedMode?
  /// `level`: the protect level (from 1).
  package var level: Int?
  /// `relaunched`: whether the held launch ran in-process after the repair.
  package var relaunched: Bool?
  /// `events`: events that must be in the events file, in this order (a subsequence).
  package var events: [EventPattern] = []
  /// `no_events`: events that must not be there.
  package var noEvents: [EventPattern] = []
  /// `backtrace_contains`: names that must appear in the symbolized crash backtrace.
  package var backtraceContains: [String] = []
  /// `handler_latency_us`: the most the crash handler may take, in microseconds.
  package var handlerLatencyMicroseconds: Double?
  /// Notify messages that must have been received, in order (`PREFIX*` matches a prefix).
  package var notify: [String] = []
  /// `state`: the persisted state after the launch.
  package var state: StateExpectation?
  /// What the kubelet's probes concluded (`probes:`, with `kubernetes:`).
  package var probes: ProbeExpectation?
  /// The back-off the kubelet waited before starting this launch, in real seconds
  /// (`restart_delay:`, with `kubernetes:`; the scaled value).
  package var restartDelay: Double?
  /// `stdout_contains:`, `stdout_lacks:`, `stderr_contains:`, `stderr_lacks:`: texts the
  /// launch's output must or must not hold (``OutputExpectation``).
  package var output = OutputExpectation()
  /// `files:`: entries of the state directory and their mode, type and owner
  /// (``FileExpectation``), checked once the launch's processes are gone.
  package var files: [FileExpectation] = []
  /// Under `systemd:`, what `systemctl show` says when the launch is judged (`systemd:`).
  package var systemd: SystemdExpectation?
  /// Under `systemd:`, texts the unit's journal lines of this launch must hold (`journal_contains:`).
  package var journalContains: [String] = []
  /// Under `systemd:`, texts none of the unit's journal lines of this launch may hold (`journal_lacks:`).
  package var journalLacks: [String] = []
  /// Under `systemd:`, when this start's `launch` event came, in seconds from the first
  /// launch's (`started_at:`).
  package var startedAt: ClosedRange<Double>?
}

/// Expectations on the persisted state after the launch.
package struct StateExpectation: Sendable {
  /// `count`: the persisted consecutive launch-crash count.
  package var count: Int?
  /// `launches_in_progress`: how many unfinished launches the sentinel lists.
  package var launchesInProgress: Int?
  /// `attempted_level`: the protect level last attempted (0: none).
  package var attemptedLevel: Int?
  /// `last_crash_type`: the cause recorded for the last counted launch.
  package var lastCrashType: String?
  /// `last_uncounted_exit`: why the last unfinished launch was not counted.
  package var lastUncountedExit: String?
  /// `moved_aside`: whether a bad state file was moved aside.
  package var movedAside: Bool?
}
