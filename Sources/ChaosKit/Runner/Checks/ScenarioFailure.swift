/// One way a scenario did not pass, as a value: what kind of expectation failed and the
/// readable message (`expected count 1, saw 2`). Tools compare kinds; people read messages.
public struct ScenarioFailure: Sendable, Equatable, Encodable, CustomStringConvertible {
  /// Which expectation or harness check failed; the raw value is the scenario key it is about.
  /// A struct, not an enum, so that a later version can add a kind (an expectation key, a
  /// harness check) without breaking a caller's `switch`: compare with the values below, or
  /// switch over ``rawValue`` and keep a `default`.
  public struct Kind: RawRepresentable, CaseIterable, Hashable, Sendable, Encodable, CustomStringConvertible {
    /// The scenario key it is about (`count`, `state.count`, `stderr_lacks`…).
    public let rawValue: String

    private init(_ rawValue: String) { self.rawValue = rawValue }

    /// The kind this version knows by that key; nil for any other.
    public init?(rawValue: String) {
      guard let known = Self.allCases.first(where: { $0.rawValue == rawValue }) else { return nil }
      self = known
    }

    /// `outcome:`.
    public static let outcome = Kind("outcome")
    /// `signal:`.
    public static let signal = Kind("signal")
    /// `exit_code:`.
    public static let exitCode = Kind("exit_code")
    /// `count:` (the `launch` event's count).
    public static let count = Kind("count")
    /// `mode:`.
    public static let mode = Kind("mode")
    /// `level:`.
    public static let level = Kind("level")
    /// `relaunched:`.
    public static let relaunched = Kind("relaunched")
    /// `events:` (in order).
    public static let events = Kind("events")
    /// `no_events:`.
    public static let noEvents = Kind("no_events")
    /// `notify:` (the systemd messages, in order).
    public static let notify = Kind("notify")
    /// `backtrace_contains:`.
    public static let backtraceContains = Kind("backtrace_contains")
    /// `handler_latency_us:`.
    public static let handlerLatency = Kind("handler_latency_us")
    /// `state.count:`.
    public static let stateCount = Kind("state.count")
    /// `state.launches_in_progress:`.
    public static let stateLaunchesInProgress = Kind("state.launches_in_progress")
    /// `state.attempted_level:`.
    public static let stateAttemptedLevel = Kind("state.attempted_level")
    /// `state.last_crash_type:`.
    public static let stateLastCrashType = Kind("state.last_crash_type")
    /// `state.last_uncounted_exit:`.
    public static let stateLastUncountedExit = Kind("state.last_uncounted_exit")
    /// `state.moved_aside:`.
    public static let stateMovedAside = Kind("state.moved_aside")
    /// A `state:` expectation on a state file the harness could not read.
    public static let stateUnreadable = Kind("state")
    /// `restart_delay:` (the kubelet's back-off).
    public static let restartDelay = Kind("restart_delay")
    /// `probes.startup:`.
    public static let probesStartup = Kind("probes.startup")
    /// `probes.liveness:`.
    public static let probesLiveness = Kind("probes.liveness")
    /// `probes.readiness:`.
    public static let probesReadiness = Kind("probes.readiness")
    /// `stdout_contains:`.
    public static let stdoutContains = Kind("stdout_contains")
    /// `stdout_lacks:`.
    public static let stdoutLacks = Kind("stdout_lacks")
    /// `stderr_contains:`.
    public static let stderrContains = Kind("stderr_contains")
    /// `stderr_lacks:`.
    public static let stderrLacks = Kind("stderr_lacks")
    /// `output_contains:` (standard output and error together).
    public static let outputContains = Kind("output_contains")
    /// `output_lacks:`.
    public static let outputLacks = Kind("output_lacks")
    /// `files:` (an entry of the state directory, its mode, type or owner).
    public static let files = Kind("files")
    /// A later launch counted a launch the harness stopped after it finished (a stop is never counted).
    public static let stopCounted = Kind("stop_counted")
    /// A `requests:` step failed.
    public static let request = Kind("request")
    /// The kubelet would not have restarted the container (`restartPolicy`).
    public static let noRestart = Kind("no_restart")
    /// The events file or a crash record in it is not valid protocol.
    public static let malformedEvents = Kind("malformed_events")
    /// The process could not be started.
    public static let notStarted = Kind("not_started")
    /// `systemd:` (what `systemctl show` says of the unit, under a real systemd).
    public static let systemd = Kind("systemd")
    /// `journal_contains:` (the unit's journal, under a real systemd).
    public static let journalContains = Kind("journal_contains")
    /// `journal_lacks:` (the unit's journal, under a real systemd).
    public static let journalLacks = Kind("journal_lacks")
    /// `started_at:` (when a start of the unit came, under a real systemd).
    public static let startedAt = Kind("started_at")

    /// Every kind this version knows, in the order above.
    public static let allCases: [Kind] = [
      .outcome, .signal, .exitCode, .count, .mode, .level, .relaunched, .events, .noEvents, .notify, .backtraceContains,
      .handlerLatency, .stateCount, .stateLaunchesInProgress, .stateAttemptedLevel, .stateLastCrashType,
      .stateLastUncountedExit, .stateMovedAside, .stateUnreadable, .restartDelay, .probesStartup, .probesLiveness,
      .probesReadiness, .stdoutContains, .stdoutLacks, .stderrContains, .stderrLacks, .stopCounted, .request,
      .noRestart, .malformedEvents, .notStarted, .outputContains, .outputLacks, .files, .systemd, .journalContains,
      .journalLacks, .startedAt,
    ]

    /// The raw value.
    public var description: String { rawValue }

    /// Encoded as its raw value, as the enum was.
    public func encode(to encoder: any Encoder) throws {
      var container = encoder.singleValueContainer()
      try container.encode(rawValue)
    }
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
