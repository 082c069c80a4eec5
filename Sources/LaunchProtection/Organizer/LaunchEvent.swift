/// The mode a launch runs in.
public enum LaunchMode: Sendable, Equatable, CustomStringConvertible {
  /// `finishLaunching` has not been called.
  case idle
  /// The normal launch is running (or ran).
  case normal
  /// A repair is running; the normal launch is held.
  case protect(ProtectLevel)
  /// `protectFinished()` ran the held launch in this process.
  case relaunched(after: ProtectLevel)
  /// `launchingFinished()` was called.
  case finished

  /// A launch is under way: started and not yet finished (normal, protect or relaunched).
  var isLaunching: Bool {
    switch self {
    case .normal, .protect, .relaunched: true
    case .idle, .finished: false
    }
  }

  public var description: String {
    switch self {
    case .idle: "idle"
    case .normal: "normal"
    case .protect: "protect"
    case .relaunched: "relaunched"
    case .finished: "finished"
    }
  }
}

/// Why this launch's count is what it is: every unfinished launch found, and what was made of it.
public struct LaunchDecision: Sendable, Equatable {
  /// The consecutive-crash count the app sees.
  public var count: Int
  /// The count persisted before this launch.
  public var previousCount: Int
  /// Unfinished launches counted as crashes now.
  public var countedCrashes: [LaunchRecord]
  /// Unfinished launches not counted, with the reason.
  public var ignored: [(record: LaunchRecord, reason: IgnoredReason)]
  /// Whether a new executable reset the count.
  public var resetByNewBinary: Bool
  /// The mode chosen.
  public var mode: LaunchMode
  /// Problems with the persisted state met while deciding.
  public var problems: [StateProblem]
  /// Why the previous process died, when its crash handler left a report (see `CrashCapture`).
  public var previousCrash: CrashCause?
  /// Protect mode past the last level: the policy's `exhausted` action applies.
  public var exhausted: Bool = false
  /// The policy the decision was made with (for observers that report it, e.g. ChaosProbe's
  /// protocol v2 `launch` event).
  public var policy: ProtectionPolicy?
  /// Unfinished launches that ended while waiting for a dependency (``LaunchRecord/waitingFor``):
  /// not counted, and never a reason to repair.
  public var dependencyOutages: [LaunchRecord] = []

  public static func == (lhs: LaunchDecision, rhs: LaunchDecision) -> Bool {
    lhs.count == rhs.count && lhs.previousCount == rhs.previousCount && lhs.countedCrashes == rhs.countedCrashes
      && lhs.ignored.map(\.record) == rhs.ignored.map(\.record)
      && lhs.ignored.map(\.reason) == rhs.ignored.map(\.reason)
      && lhs.resetByNewBinary == rhs.resetByNewBinary && lhs.mode == rhs.mode && lhs.problems == rhs.problems
      && lhs.previousCrash == rhs.previousCrash && lhs.exhausted == rhs.exhausted
      && lhs.dependencyOutages == rhs.dependencyOutages
  }
}

/// Why an unfinished launch found in the state was not counted.
public enum IgnoredReason: String, Sendable, Equatable {
  /// Its process is still running (a parallel launch).
  case stillRunning
  /// The machine rebooted since it started.
  case reboot
  /// A stop was requested during it (SIGTERM seen by the organizer, or `stopRequested()`).
  case terminated
}

/// What a life action did.
public enum LifeActionOutcome: String, Sendable, Equatable {
  /// Normal mode: the action ran at once.
  case ran
  /// Protect mode: the protect action ran and the action is held for `performAction(key:)`.
  case protected
  /// Protect mode without a protect action: the action is held.
  case held
  /// A held action ran through `performAction(key:)`.
  case performed
}

/// Every transition LaunchProtection makes, for the app to log or turn into events.
public enum LaunchProtectionEvent: Sendable {
  /// `finishLaunching` decided; the decision says why.
  case launch(LaunchDecision)
  /// Protect mode was entered; the level was persisted before this event.
  case protectEnter(count: Int, level: ProtectLevel)
  /// `protectFinished()` was called.
  case protectFinish(level: ProtectLevel)
  /// The held launch is about to run in this process.
  case relaunch
  /// `launchingFinished()` persisted count 0.
  case launchingFinished
  /// A life action was handled.
  case lifeAction(key: String, outcome: LifeActionOutcome)
  /// The persisted state had a problem (reported, never fatal).
  case stateProblem(StateProblem)
  /// `handleException` recorded a cause.
  case exceptionRecorded(CrashCause)
  /// This launch ended cleanly before finishing (`exit(0)`), so it will not count.
  case uncountedExit(UncountedReason)
  /// `phase` (`launch`, `repair` or `relaunch`) ran past `launchDeadline`; the process is
  /// about to be ended by SIGABRT and the next launch counts it.
  case launchDeadlineExceeded(phase: String, deadline: Duration)
  /// A stop was requested during the launch (SIGTERM or `stopRequested()`), recorded in the
  /// sentinel: this launch will not count, whatever ends the process.
  case stopRequested
  /// Every level was attempted and the launch died again; `action` is what happens now.
  case levelsExhausted(count: Int, level: ProtectLevel, action: ExhaustedLevels)
}
