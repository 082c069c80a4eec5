/// Every transition LaunchProtection makes, for the app to log or turn into events.
///
/// A struct, not an enum, so that a later version can add a kind of event without breaking a
/// caller's `switch`: switch over ``kind-swift.property`` and keep a `default`, then read the
/// payload the kind names (``decision``, ``level``…). The static members named like 0.2.0's
/// cases still build events, and `if case .launchingFinished = event` still compiles for the
/// kinds without a payload.
///
/// ```swift
/// organizer.observe { observation in
///   guard let event = observation.event else { return }
///   switch event.kind {
///   case .launch: print("count", event.decision?.count ?? 0)
///   case .protectEnter: print("repairing at level", event.level?.number ?? 0)
///   default: break
///   }
/// }
/// ```
public struct LaunchProtectionEvent: Sendable, Equatable {
  /// What happened. New kinds may be added in any release.
  public struct Kind: Hashable, Sendable, CustomStringConvertible {
    /// The machine-readable name, as ChaosProbe's events and the log sink carry it
    /// (`launch`, `protect_enter`, `launch_hang`…).
    public let name: String

    /// Every kind of this version, for the library's own `switch`es (its description, the log
    /// levels, the metrics, the probe's events): the only initializer takes one, so a new kind
    /// fails to compile until each `switch` over ``known`` handles it.
    package enum Known: String, CaseIterable, Sendable {
      case launch, relaunch
      case protectEnter = "protect_enter"
      case protectFinish = "protect_finish"
      case launchingFinished = "launching_finished"
      case lifeAction = "life_action"
      case stateProblem = "state_problem"
      case exceptionRecorded = "exception_recorded"
      case uncountedExit = "uncounted_exit"
      case launchDeadlineExceeded = "launch_hang"
      case stopRequested = "stop_requested"
      case levelsExhausted = "protect_exhausted"
      case privateStateDirectory = "private_state_directory"
    }

    private init(_ known: Known) { self.name = known.rawValue }

    /// This kind as the enum the library switches over; every kind is one (see ``Known``).
    package var known: Known { Known(rawValue: name)! }

    /// `finishLaunching` decided: ``LaunchProtectionEvent/decision`` says why.
    public static let launch = Kind(.launch)
    /// Protect mode was entered (``LaunchProtectionEvent/count``, ``LaunchProtectionEvent/level``);
    /// the level was persisted before this event.
    public static let protectEnter = Kind(.protectEnter)
    /// `protectFinished()` was called (``LaunchProtectionEvent/level``).
    public static let protectFinish = Kind(.protectFinish)
    /// The held launch is about to run in this process.
    public static let relaunch = Kind(.relaunch)
    /// `launchingFinished()` persisted count 0.
    public static let launchingFinished = Kind(.launchingFinished)
    /// A life action was handled (``LaunchProtectionEvent/lifeActionKey``,
    /// ``LaunchProtectionEvent/lifeActionOutcome``).
    public static let lifeAction = Kind(.lifeAction)
    /// The persisted state had a problem, reported and never fatal
    /// (``LaunchProtectionEvent/stateProblem``).
    public static let stateProblem = Kind(.stateProblem)
    /// `handleException` recorded a cause (``LaunchProtectionEvent/cause``).
    public static let exceptionRecorded = Kind(.exceptionRecorded)
    /// This launch ended cleanly before finishing (`exit(0)`), so it will not count
    /// (``LaunchProtectionEvent/uncountedReason``).
    public static let uncountedExit = Kind(.uncountedExit)
    /// A phase ran past the launch deadline (``LaunchProtectionEvent/phase``,
    /// ``LaunchProtectionEvent/deadline``): the process is about to be ended by SIGABRT, and the
    /// next launch counts it.
    public static let launchDeadlineExceeded = Kind(.launchDeadlineExceeded)
    /// A stop was requested during the launch (SIGTERM or `stopRequested()`), recorded in the
    /// sentinel: this launch will not count, whatever ends the process.
    public static let stopRequested = Kind(.stopRequested)
    /// Every level was attempted and the launch died again (``LaunchProtectionEvent/count``,
    /// ``LaunchProtectionEvent/level``); ``LaunchProtectionEvent/exhaustedAction`` is what
    /// happens now.
    public static let levelsExhausted = Kind(.levelsExhausted)
    /// Other users can write the configured state directory, so the state is kept in its
    /// private subdirectory `private-<uid>` (``LaunchProtectionEvent/stateDirectory``, and
    /// why: ``LaunchProtectionEvent/stateDirectoryReason``). Said once per process.
    public static let privateStateDirectory = Kind(.privateStateDirectory)

    /// The name.
    public var description: String { name }
  }

  /// What happened.
  public let kind: Kind
  /// The decision of a ``Kind-swift.struct/launch`` event.
  public private(set) var decision: LaunchDecision?
  /// The consecutive-crash count of ``Kind-swift.struct/protectEnter`` and
  /// ``Kind-swift.struct/levelsExhausted``.
  public private(set) var count: Int?
  /// The level of ``Kind-swift.struct/protectEnter``, ``Kind-swift.struct/protectFinish`` and
  /// ``Kind-swift.struct/levelsExhausted``.
  public private(set) var level: ProtectLevel?
  /// The key of a ``Kind-swift.struct/lifeAction`` event.
  public private(set) var lifeActionKey: String?
  /// What the life action of a ``Kind-swift.struct/lifeAction`` event did.
  public private(set) var lifeActionOutcome: LifeActionOutcome?
  /// The problem of a ``Kind-swift.struct/stateProblem`` event.
  public private(set) var stateProblem: StateProblem?
  /// The cause of an ``Kind-swift.struct/exceptionRecorded`` event.
  public private(set) var cause: CrashCause?
  /// Why an ``Kind-swift.struct/uncountedExit`` does not count.
  public private(set) var uncountedReason: UncountedReason?
  /// The phase that ran past its deadline (``Kind-swift.struct/launchDeadlineExceeded``).
  public private(set) var phase: LaunchPhase?
  /// The deadline it ran past (``Kind-swift.struct/launchDeadlineExceeded``).
  public private(set) var deadline: Duration?
  /// What happens once the levels are exhausted (``Kind-swift.struct/levelsExhausted``).
  public private(set) var exhaustedAction: ExhaustedLevels?
  /// The directory the state is kept in (``Kind-swift.struct/privateStateDirectory``).
  public private(set) var stateDirectory: String?
  /// Why the state is kept there: the shared directory, its owner and mode
  /// (``Kind-swift.struct/privateStateDirectory``).
  public private(set) var stateDirectoryReason: String?

  private init(_ kind: Kind) { self.kind = kind }

  /// `finishLaunching` decided; the decision says why.
  public static func launch(_ decision: LaunchDecision) -> LaunchProtectionEvent {
    var event = LaunchProtectionEvent(.launch)
    event.decision = decision
    return event
  }

  /// Protect mode was entered; the level was persisted before this event.
  public static func protectEnter(count: Int, level: ProtectLevel) -> LaunchProtectionEvent {
    var event = LaunchProtectionEvent(.protectEnter)
    event.count = count
    event.level = level
    return event
  }

  /// `protectFinished()` was called.
  public static func protectFinish(level: ProtectLevel) -> LaunchProtectionEvent {
    var event = LaunchProtectionEvent(.protectFinish)
    event.level = level
    return event
  }

  /// The held launch is about to run in this process.
  public static let relaunch = LaunchProtectionEvent(.relaunch)

  /// `launchingFinished()` persisted count 0.
  public static let launchingFinished = LaunchProtectionEvent(.launchingFinished)

  /// A life action was handled.
  public static func lifeAction(key: String, outcome: LifeActionOutcome) -> LaunchProtectionEvent {
    var event = LaunchProtectionEvent(.lifeAction)
    event.lifeActionKey = key
    event.lifeActionOutcome = outcome
    return event
  }

  /// The persisted state had a problem (reported, never fatal).
  public static func stateProblem(_ problem: StateProblem) -> LaunchProtectionEvent {
    var event = LaunchProtectionEvent(.stateProblem)
    event.stateProblem = problem
    return event
  }

  /// `handleException` recorded a cause.
  public static func exceptionRecorded(_ cause: CrashCause) -> LaunchProtectionEvent {
    var event = LaunchProtectionEvent(.exceptionRecorded)
    event.cause = cause
    return event
  }

  /// This launch ended cleanly before finishing (`exit(0)`), so it will not count.
  public static func uncountedExit(_ reason: UncountedReason) -> LaunchProtectionEvent {
    var event = LaunchProtectionEvent(.uncountedExit)
    event.uncountedReason = reason
    return event
  }

  /// `phase` ran past `deadline`; the process is about to be ended by SIGABRT and the next
  /// launch counts it.
  public static func launchDeadlineExceeded(phase: LaunchPhase, deadline: Duration) -> LaunchProtectionEvent {
    var event = LaunchProtectionEvent(.launchDeadlineExceeded)
    event.phase = phase
    event.deadline = deadline
    return event
  }

  /// A stop was requested during the launch (SIGTERM or `stopRequested()`), recorded in the
  /// sentinel: this launch will not count, whatever ends the process.
  public static let stopRequested = LaunchProtectionEvent(.stopRequested)

  /// Every level was attempted and the launch died again; `action` is what happens now.
  public static func levelsExhausted(count: Int, level: ProtectLevel, action: ExhaustedLevels) -> LaunchProtectionEvent
  {
    var event = LaunchProtectionEvent(.levelsExhausted)
    event.count = count
    event.level = level
    event.exhaustedAction = action
    return event
  }

  /// The state is kept in `directory`, the private subdirectory of a shared one, for `reason`.
  public static func privateStateDirectory(_ directory: String, reason: String) -> LaunchProtectionEvent {
    var event = LaunchProtectionEvent(.privateStateDirectory)
    event.stateDirectory = directory
    event.stateDirectoryReason = reason
    return event
  }
}

extension LaunchProtectionEvent {
  /// 0.2.0's form, with the phase as its word (`launch`, `repair`, `relaunch`).
  @available(*, deprecated, message: "pass the LaunchPhase: launchDeadlineExceeded(phase: .launching, deadline:)")
  public static func launchDeadlineExceeded(phase: String, deadline: Duration) -> LaunchProtectionEvent {
    launchDeadlineExceeded(phase: LaunchPhase(step: phase) ?? .launching, deadline: deadline)
  }
}

extension LaunchProtectionEvent {
  /// Matches an event by its kind, so that 0.2.0's patterns without bindings still compile:
  /// `if case .protectEnter = event`, `case .launch:` in a `switch` over an event.
  public static func ~= (kind: Kind, event: LaunchProtectionEvent) -> Bool {
    event.kind == kind
  }
}
