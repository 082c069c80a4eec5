/// What one process of one launch did.
public struct ProcessResult: Codable, Sendable {
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
  /// How it ended, e.g. `SIGSEGV`, `exit(0)`, `timeout`.
  public var end: String
  /// The outcome class.
  public var outcome: String
  /// The count from its `launch` event.
  public var count: Int?
  /// The mode from its `launch` event.
  public var mode: String?
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
  /// Failed expectations.
  public var failures: [String]
  /// What each of the launch's `requests:` did (nil when it has none).
  public var requests: [RequestResult]? = nil
  /// The harness stopped it as a daemon (`daemon:`) after it finished launching.
  public var stoppedByHarness = false
  /// Its events and when it ran, for the reports that draw them (`RunOptions.recordsTimeline`).
  public var timeline: ProcessTimeline? = nil
}

/// A scenario's result.
public struct ScenarioResult: Codable, Sendable {
  /// The file.
  public var path: String
  /// Its name.
  public var name: String
  /// Its group (folder).
  public var group: String
  /// `passed`, `failed` or `error` (the scenario could not run: bad file, missing target).
  public var status: String
  /// Failure or error messages, each naming the launch, the expectation and what was seen.
  public var messages: [String]
  /// Every process run.
  public var processes: [ProcessResult]
  /// Wall time, seconds.
  public var seconds: Double
  /// Artifacts directory (kept on failure or with `--keep`), nil when removed.
  public var artifacts: String?

  /// Whether it passed.
  public var passed: Bool { status == "passed" }
}

extension ScenarioResult: CustomStringConvertible {
  /// One line: status, file and how many expectations failed (the details are in `report`).
  public var description: String {
    "\(status): \(path) (\(processes.count) processes, \(messages.count) failure messages)"
  }
}
