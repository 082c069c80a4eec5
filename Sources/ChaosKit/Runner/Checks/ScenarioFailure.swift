/// One way a scenario did not pass, as a value: what kind of expectation failed and the
/// readable message (`expected count 1, saw 2`). Tools compare kinds; people read messages.
public struct ScenarioFailure: Sendable, Equatable, Encodable, CustomStringConvertible {
  /// Which expectation or harness check failed; the raw value is the scenario key it is about.
  public enum Kind: String, Sendable, Equatable, Encodable, CaseIterable {
    /// `outcome:`.
    case outcome
    /// `signal:`.
    case signal
    /// `exit_code:`.
    case exitCode = "exit_code"
    /// `count:` (the `launch` event's count).
    case count
    /// `mode:`.
    case mode
    /// `level:`.
    case level
    /// `relaunched:`.
    case relaunched
    /// `events:` (in order).
    case events
    /// `no_events:`.
    case noEvents = "no_events"
    /// `notify:` (the systemd messages, in order).
    case notify
    /// `backtrace_contains:`.
    case backtraceContains = "backtrace_contains"
    /// `handler_latency_us:`.
    case handlerLatency = "handler_latency_us"
    /// `state.count:`.
    case stateCount = "state.count"
    /// `state.launches_in_progress:`.
    case stateLaunchesInProgress = "state.launches_in_progress"
    /// `state.attempted_level:`.
    case stateAttemptedLevel = "state.attempted_level"
    /// `state.last_crash_type:`.
    case stateLastCrashType = "state.last_crash_type"
    /// `state.last_uncounted_exit:`.
    case stateLastUncountedExit = "state.last_uncounted_exit"
    /// `state.moved_aside:`.
    case stateMovedAside = "state.moved_aside"
    /// A `state:` expectation on a state file the harness could not read.
    case stateUnreadable = "state"
    /// `restart_delay:` (the kubelet's back-off).
    case restartDelay = "restart_delay"
    /// `probes.startup:`.
    case probesStartup = "probes.startup"
    /// `probes.liveness:`.
    case probesLiveness = "probes.liveness"
    /// `probes.readiness:`.
    case probesReadiness = "probes.readiness"
    /// `stdout_contains:`.
    case stdoutContains = "stdout_contains"
    /// `stdout_lacks:`.
    case stdoutLacks = "stdout_lacks"
    /// `stderr_contains:`.
    case stderrContains = "stderr_contains"
    /// `stderr_lacks:`.
    case stderrLacks = "stderr_lacks"
    /// A later launch counted a launch the harness stopped after it finished (a stop is never counted).
    case stopCounted = "stop_counted"
    /// A `requests:` step failed.
    case request
    /// The kubelet would not have restarted the container (`restartPolicy`).
    case noRestart = "no_restart"
    /// The events file or a crash record in it is not valid protocol.
    case malformedEvents = "malformed_events"
    /// The process could not be started.
    case notStarted = "not_started"
  }

  /// What failed.
  public var kind: Kind
  /// What was expected and what was seen, in words.
  public var message: String

  /// A failure of `kind` with its message.
  public init(_ kind: Kind, _ message: String) {
    self.kind = kind
    self.message = message
  }

  /// `expected <key> <expected>, saw <saw>`, the form of every expectation's failure.
  package static func expected(_ kind: Kind, _ expected: String, saw: String) -> ScenarioFailure {
    Self.expected(kind, expected, saw: saw, named: nil)
  }

  /// The same, with `named` in place of the key where the words read better (`events in
  /// order` for `events`). A second function, not a defaulted parameter: the API check counts
  /// `package` signatures too.
  package static func expected(_ kind: Kind, _ expected: String, saw: String, named: String?) -> ScenarioFailure {
    ScenarioFailure(kind, "expected \(named ?? kind.rawValue) \(expected), saw \(saw)")
  }

  /// The message.
  public var description: String { message }

  /// Encoded as its message, as reports have always shown failures.
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    try container.encode(message)
  }
}
