/// What one process of one launch did.
public struct ProcessResult: Encodable, Sendable {
  /// 1-based launch number in the scenario.
  public var launch: Int
  /// The launch entry's line in the file.
  public var line: Int
  /// 1-based repetition (`repeat`).
  public var iteration: Int
  /// 1-based process (`parallel`).
  public var process: Int
  /// Process id, as the harness sees it.
  public var pid: Int32
  /// The process id the target reported in its events, when it differs from `pid` (1 for a
  /// launch run as PID 1 of its own namespaces, `container: true`).
  public var targetPid: Int32? = nil
  /// How it ended (`exit(0)`, `SIGSEGV`, the watchdog's timeout); nil when it never started
  /// (`failures` says why).
  public var end: ProcessEnd?
  /// The outcome class; nil when it never started.
  public var outcome: Outcome?
  /// The count from its `launch` event.
  public var count: Int?
  /// The mode from its `launch` event.
  public var mode: ReportedMode?
  /// Whether it relaunched after protect finish.
  public var relaunched: Bool
  /// Crash handler latency (entry → record written), µs.
  public var handlerLatencyMicroseconds: Double?
  /// Fault → handler entry (delivery), µs, when the fault was a failpoint.
  public var deliveryLatencyMicroseconds: Double?
  /// Wall time from spawn to reap, ms.
  public var durationMilliseconds: Double
  /// Where its output, events and (for the last process) state are kept.
  public var artifacts: String
  /// Failed expectations, each with its kind.
  public var failures: [ScenarioFailure]
  /// What each of the launch's `requests:` did (nil when it has none).
  public var requests: [RequestResult]? = nil
  /// The harness stopped it as a daemon (`daemon:`) after it finished launching.
  public var stoppedByHarness = false
  /// Its events and when it ran, for the reports that draw them (`RunOptions.recordsTimeline`).
  package var timeline: ProcessTimeline? = nil
}

/// A scenario's result.
public struct ScenarioResult: Encodable, Sendable {
  /// Whether a scenario passed, failed an expectation, or could not run.
  public enum Status: String, Sendable, Equatable, Encodable, CustomStringConvertible {
    /// Every expectation held.
    case passed
    /// An expectation failed (`failures` and `messages` say which).
    case failed
    /// The scenario could not run: a bad file, a missing target, an interrupted run.
    case error

    /// `passed`, `failed` or `error`.
    public var description: String { rawValue }
  }

  /// The file.
  public var path: String
  /// Its name.
  public var name: String
  /// Its group (folder).
  public var group: String
  /// Passed, failed or error.
  public var status: Status
  /// Failure or error messages, each naming the launch, the expectation and what was seen.
  public var messages: [String]
  /// The failures as values, in the order of `messages` (an error has none: it is not an
  /// expectation that failed).
  public var failures: [ScenarioFailure] = []
  /// Every process run.
  public var processes: [ProcessResult]
  /// Wall time, seconds.
  public var seconds: Double
  /// Artifacts directory (kept on failure or with `--keep`), nil when removed.
  public var artifacts: String?
  /// The launch under way when the run's cutoff passed (`RunOptions.cutoff`, `chaos explore
  /// --time`): its processes were killed and it and the launches after it were not judged.
  /// Nil when the scenario ran to its end.
  package var cutAtLaunch: Int?
  /// Why it was skipped (a privilege this run lacks); nil when it ran or failed to for
  /// another reason. A skipped scenario's `status` is `error`: it did not run.
  public var skipped: ScenarioSkip? = nil
  /// Why the scenario ran a second time: its first attempt failed in the machine, not in the
  /// target (systemd refusing the harness's exit recorder a control group). This result is the
  /// second attempt's; nil when it ran once.
  public var retried: String? = nil

  /// Whether it passed.
  public var passed: Bool { status == .passed }
}

extension ScenarioResult: CustomStringConvertible {
  /// One line: status, file and how many expectations failed (the details are in `report`).
  public var description: String {
    "\(status): \(path) (\(processes.count) processes, \(messages.count) failure messages)"
  }
}

extension ProcessResult {
  /// How it ended, in words; `not started` when it never started.
  package var endText: String { end?.description ?? "not started" }
  /// The outcome's name; `error` when it never started.
  package var outcomeText: String { outcome?.rawValue ?? "error" }
}
