import LaunchProtection
import Logging

/// Logs every `LaunchProtectionEvent` through a swift-log `Logger`: the event's readable
/// description as the message, its facts as metadata (`launch.event`, `launch.count`,
/// `launch.level`, `launch.mode`, `launch.reason`, `launch.phase`, `launch.pid`…).
///
/// ```swift
/// organizer.log(to: logger)                                   // or:
/// organizer.observe { if let event = $0.event { LaunchEventLogger(logger)(event) } }
/// ```
///
/// Levels: problems with the persisted state, exhausted repair levels and a launch past its
/// deadline are `.error`; entering protect mode, a crash record, a dependency that did not
/// answer and, at a start after an outage, the outage history (`organizer.log(to:)`: `5 starts
/// in a row ended waiting for postgres since …`) are `.warning`; a stop request, a held
/// action, the state kept in a private subdirectory of a shared directory (once per process)
/// and a dependency that answered only after ``slowDependencyWait`` are `.notice`; the beginning
/// of a wait is `.debug`; everything else is `.info`. So a healthy start logs nothing at
/// `.notice`, even when it waits for a database. A report on SIGTERM's owner and a wait: the
/// `level(of:)` overloads.
public struct LaunchEventLogger: Sendable {
  /// The logger events go to.
  public var logger: Logger

  /// Logs through `logger`.
  public init(_ logger: Logger) {
    self.logger = logger
  }

  /// Logs one event (an observation's `event`).
  public func callAsFunction(_ event: LaunchProtectionEvent) {
    logger.log(
      level: Self.level(of: event), "\(event.description)", metadata: Self.metadata(of: event),
      source: "LaunchProtection")
  }

  /// The level `event` is logged at.
  public static func level(of event: LaunchProtectionEvent) -> Logger.Level {
    switch event.kind.known {
    case .stateProblem, .levelsExhausted, .launchDeadlineExceeded: .error
    case .protectEnter, .exceptionRecorded: .warning
    case .launch:
      (event.decision?.count ?? 0) > 0 || !(event.decision?.problems.isEmpty ?? true) ? .notice : .info
    case .stopRequested, .uncountedExit, .privateStateDirectory: .notice
    case .lifeAction: event.lifeActionOutcome == .ran || event.lifeActionOutcome == .performed ? .info : .notice
    case .protectFinish, .relaunch, .launchingFinished: .info
    }
  }

  /// How long a wait for a dependency may last before its answer is logged at `.notice`: a
  /// start held that long by its database is worth an operator's look, a quicker answer is
  /// routine (`.info`).
  public static let slowDependencyWait: Duration = .seconds(1)

  /// The level a wait for a dependency is logged at (`organizer.log(to:)`): its beginning at
  /// `.debug`, since every start that uses a database makes one; its answer at `.info`, or at
  /// `.notice` once the wait lasted ``slowDependencyWait`` or more; a dependency that did not
  /// answer at `.warning`.
  public static func level(of wait: DependencyWait) -> Logger.Level {
    switch wait.stage {
    case .failed: .warning
    case .answered: (wait.waited ?? .zero) >= slowDependencyWait ? .notice : .info
    default: .debug
    }
  }

  /// The metadata logged with `event`.
  public static func metadata(of event: LaunchProtectionEvent) -> Logger.Metadata {
    var metadata: Logger.Metadata = ["launch.event": "\(name(of: event))"]
    switch event.kind.known {
    case .launch:
      guard let decision = event.decision else { break }
      metadata["launch.count"] = "\(decision.count)"
      metadata["launch.previous_count"] = "\(decision.previousCount)"
      metadata["launch.mode"] = "\(decision.mode)"
      if case .protect(let level) = decision.mode { add(level, to: &metadata) }
      if !decision.countedCrashes.isEmpty {
        metadata["launch.counted"] = .array(decision.countedCrashes.map { "\($0.process.pid)" })
      }
      if !decision.ignored.isEmpty {
        metadata["launch.ignored"] = .array(
          decision.ignored.map {
            Logger.MetadataValue.dictionary(["pid": "\($0.record.process.pid)", "reason": "\($0.reason.rawValue)"])
          })
      }
      if decision.resetByNewBinary { metadata["launch.reset_by_new_binary"] = "true" }
      if decision.exhausted { metadata["launch.exhausted"] = "true" }
      if let crash = decision.previousCrash { metadata["launch.previous_crash"] = "\(crash.type)" }
      if !decision.dependencyOutages.isEmpty {
        metadata["launch.dependency_outages"] = .array(
          decision.dependencyOutages.map {
            Logger.MetadataValue.dictionary(["pid": "\($0.process.pid)", "dependency": "\($0.waitingFor ?? "")"])
          })
      }
    case .protectEnter:
      if let count = event.count { metadata["launch.count"] = "\(count)" }
      if let level = event.level { add(level, to: &metadata) }
    case .protectFinish:
      if let level = event.level { add(level, to: &metadata) }
    case .lifeAction:
      if let key = event.lifeActionKey { metadata["launch.action"] = "\(key)" }
      if let outcome = event.lifeActionOutcome { metadata["launch.outcome"] = "\(outcome.rawValue)" }
    case .stateProblem:
      if let problem = event.stateProblem { metadata["launch.problem"] = "\(problem.kind)" }
    case .privateStateDirectory:
      if let directory = event.stateDirectory { metadata["launch.state_directory"] = "\(directory)" }
    case .exceptionRecorded:
      guard let cause = event.cause else { break }
      metadata["launch.cause"] = "\(cause.type)"
      metadata["launch.after_launch"] = "\(cause.afterLaunch)"
      if let pid = cause.pid { metadata["launch.pid"] = "\(pid)" }
    case .uncountedExit:
      if let reason = event.uncountedReason { metadata["launch.reason"] = "\(reason.rawValue)" }
    case .launchDeadlineExceeded:
      if let phase = event.phase { metadata["launch.phase"] = "\(phase.step)" }
      if let deadline = event.deadline { metadata["launch.deadline"] = "\(deadline)" }
    case .levelsExhausted:
      if let count = event.count { metadata["launch.count"] = "\(count)" }
      if let level = event.level { add(level, to: &metadata) }
      if let action = event.exhaustedAction { metadata["launch.exhausted_action"] = "\(action)" }
    case .relaunch, .launchingFinished, .stopRequested:
      break  // the event's name says it all
    }
    return metadata
  }

  /// The level a report on SIGTERM's owner is logged at: `.warning` when SIGTERM is no stop
  /// at all (ignored, read where the organizer cannot see), `.notice` when a stop can still go
  /// unrecorded (an owner taken during the launch in an app with no declared shutdown path),
  /// `.debug` otherwise: a server whose shutdown path records its stops (`ServerLaunch`) logs
  /// nothing at the default level on a healthy start.
  public static func level(of report: StopSignalReport) -> Logger.Level {
    !report.stopsRecorded ? .warning : report.stopCanGoUnrecorded ? .notice : .debug
  }

  /// A short machine-readable name for `event` (`launch.event` in the metadata):
  /// the event kind's `name`.
  public static func name(of event: LaunchProtectionEvent) -> String {
    event.kind.name
  }

  private static func add(_ level: ProtectLevel, to metadata: inout Logger.Metadata) {
    metadata["launch.level"] = "\(level.number)"
    metadata["launch.level_name"] = "\(level.name)"
  }
}

extension LaunchOrganizer {
  /// Logs every event of this organizer through `logger` (see `LaunchEventLogger`). Call it
  /// before the launch starts, like any observer.
  public func log(to logger: Logger) {
    let events = LaunchEventLogger(logger)
    observe { [weak self] observation in
      if let event = observation.event { events(event) }
      if let decision = observation.event?.decision, decision.followsDependencyOutage,
        let outage = self?.status.dependencyOutage
      {
        ObservationLog.log(outage, to: logger)
      }
      if let report = observation.stopSignal { ObservationLog.log(report, to: logger) }
      if let wait = observation.dependencyWait { ObservationLog.log(wait, to: logger) }
    }
  }
}

/// The log lines of what is not a ``LaunchProtectionEvent``.
private enum ObservationLog {
  static func log(_ report: StopSignalReport, to logger: Logger) {
    logger.log(
      level: LaunchEventLogger.level(of: report), "\(report)",
      metadata: [
        "launch.event": "stop_signal", "launch.stops_recorded": "\(report.stopsRecorded)",
        "launch.stop_can_go_unrecorded": "\(report.stopCanGoUnrecorded)",
      ],
      source: "LaunchProtection")
  }

  /// The outage history at a start that found one: a warning, as a dependency that did not
  /// answer is. Its message has two forms (`1 start ended…`, `5 starts in a row ended…`); the
  /// metadata is the same for both, so that an alert matches `launch.event` and reads the rest
  /// (the times in whole seconds since 1970, as the outage gauges have them).
  static func log(_ outage: DependencyOutage, to logger: Logger) {
    logger.warning(
      "\(outage.history)",
      metadata: [
        "launch.event": "dependency_outages", "launch.dependency": "\(outage.dependency)",
        "launch.outages_in_a_row": "\(outage.launchesInARow)", "launch.pid": "\(outage.pid)",
        "launch.outage_since": "\(Int(outage.since.timeIntervalSince1970))",
        "launch.outage_last": "\(Int(outage.decisionDate.timeIntervalSince1970))",
      ],
      source: "LaunchProtection")
  }

  static func log(_ wait: DependencyWait, to logger: Logger) {
    var metadata: Logger.Metadata = [
      "launch.event": "\(wait.stage == .waiting ? "dependency_wait" : "dependency_\(wait.stage)")",
      "launch.dependency": "\(wait.dependency)",
    ]
    if let waited = wait.waited { metadata["launch.waited"] = "\(waited)" }
    logger.log(level: LaunchEventLogger.level(of: wait), "\(wait)", metadata: metadata, source: "LaunchProtection")
  }
}
