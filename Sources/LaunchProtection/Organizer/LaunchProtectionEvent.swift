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
    @usableFromInline package enum Known: String, CaseIterable, Sendable {
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

    @usableFromInline init(_ known: Known) { self.name = known.rawValue }

    /// This kind as the enum the library switches over; every kind is one (see ``Known``).
    package var known: Known { Known(rawValue: name)! }

    /// `finishLaunching` decided: ``LaunchProtectionEvent/decision`` says why.
    @_alwaysEmitIntoClient
    public static var launch: Kind { Kind(.launch) }
    /// Protect mode was entered (``LaunchProtectionEvent/count``, ``LaunchProtectionEvent/level``);
    /// the level was persisted before this event.
    @_alwaysEmitIntoClient
    public static var protectEnter: Kind { Kind(.protectEnter) }
    /// `protectFinished()` was called (``LaunchProtectionEvent/level``).
    @_alwaysEmitIntoClient
    public static var protectFinish: Kind { Kind(.protectFinish) }
    /// The held launch is about to run in this process.
    @_alwaysEmitIntoClient
    public static var relaunch: Kind { Kind(.relaunch) }
    /// `launchingFinished()` persisted count 0.
    @_alwaysEmitIntoClient
    public static var launchingFinished: Kind { Kind(.launchingFinished) }
    /// A life action was handled (``LaunchProtectionEvent/lifeActionKey``,
    /// ``LaunchProtectionEvent/lifeActionOutcome``).
    @_alwaysEmitIntoClient
    public static var lifeAction: Kind { Kind(.lifeAction) }
    /// The persisted state had a problem, reported and never fatal
    /// (``LaunchProtectionEvent/stateProblem``).
    @_alwaysEmitIntoClient
    public static var stateProblem: Kind { Kind(.stateProblem) }
    /// `handleException` recorded a cause (``LaunchProtectionEvent/cause``).
    @_alwaysEmitIntoClient
    public static var exceptionRecorded: Kind { Kind(.exceptionRecorded) }
    /// This launch ended cleanly before finishing (`exit(0)`), so it will not count
    /// (``LaunchProtectionEvent/uncountedReason``).
    @_alwaysEmitIntoClient
    public static var uncountedExit: Kind { Kind(.uncountedExit) }
    /// A phase ran past the launch deadline (``LaunchProtectionEvent/phase``,
    /// ``LaunchProtectionEvent/deadline``): the process is about to be ended by SIGABRT, and the
    /// next launch counts it.
    @_alwaysEmitIntoClient
    public static var launchDeadlineExceeded: Kind { Kind(.launchDeadlineExceeded) }
    /// A stop was requested during the launch (SIGTERM or `stopRequested()`), recorded in the
    /// sentinel: this launch will not count, whatever ends the process.
    @_alwaysEmitIntoClient
    public static var stopRequested: Kind { Kind(.stopRequested) }
    /// Every level was attempted and the launch died again (``LaunchProtectionEvent/count``,
    /// ``LaunchProtectionEvent/level``); ``LaunchProtectionEvent/exhaustedAction`` is what
    /// happens now.
    @_alwaysEmitIntoClient
    public static var levelsExhausted: Kind { Kind(.levelsExhausted) }
    /// Other users can write the configured state directory, so the state is kept in its
    /// private subdirectory `private-<uid>` (``LaunchProtectionEvent/stateDirectory``, and
    /// why: ``LaunchProtectionEvent/stateDirectoryReason``). Said once per process.
    @_alwaysEmitIntoClient
    public static var privateStateDirectory: Kind { Kind(.privateStateDirectory) }

    /// The name.
    public var description: String { name }
  }

  /// What happened.
  public let kind: Kind
  /// The decision of a ``Kind-swift.struct/launch`` event.
  public var decision: LaunchDecision? { payload?.decision }
  /// The consecutive-crash count of ``Kind-swift.struct/protectEnter`` and
  /// ``Kind-swift.struct/levelsExhausted``.
  public var count: Int? { payload?.count }
  /// The level of ``Kind-swift.struct/protectEnter``, ``Kind-swift.struct/protectFinish`` and
  /// ``Kind-swift.struct/levelsExhausted``.
  public var level: ProtectLevel? { payload?.level }
  /// The key of a ``Kind-swift.struct/lifeAction`` event.
  public var lifeActionKey: String? { payload?.lifeActionKey }
  /// What the life action of a ``Kind-swift.struct/lifeAction`` event did.
  public var lifeActionOutcome: LifeActionOutcome? { payload?.lifeActionOutcome }
  /// The problem of a ``Kind-swift.struct/stateProblem`` event.
  public var stateProblem: StateProblem? { payload?.stateProblem }
  /// The cause of an ``Kind-swift.struct/exceptionRecorded`` event.
  public var cause: CrashCause? { payload?.cause }
  /// Why an ``Kind-swift.struct/uncountedExit`` does not count.
  public var uncountedReason: UncountedReason? { payload?.uncountedReason }
  /// The phase that ran past its deadline (``Kind-swift.struct/launchDeadlineExceeded``).
  public var phase: LaunchPhase? { payload?.phase }
  /// The deadline it ran past (``Kind-swift.struct/launchDeadlineExceeded``).
  public var deadline: Duration? { payload?.deadline }
  /// What happens once the levels are exhausted (``Kind-swift.struct/levelsExhausted``).
  public var exhaustedAction: ExhaustedLevels? { payload?.exhaustedAction }
  /// The directory the state is kept in (``Kind-swift.struct/privateStateDirectory``).
  public var stateDirectory: String? { payload?.stateDirectory }
  /// Why the state is kept there: the shared directory, its owner and mode
  /// (``Kind-swift.struct/privateStateDirectory``).
  public var stateDirectoryReason: String? { payload?.stateDirectoryReason }

  /// The payload of the kinds that carry one, behind one reference: inline, its dozen
  /// optionals made every copy of an event (and of an observation or status holding one)
  /// kilobytes of value-witness code in every program that links the library.
  private let payload: Payload?

  /// The fields (nil where the kind has none), in a class so that no copy of them is made:
  /// a struct of them cost as much value-witness code as the inline fields did.
  private final class Payload: Sendable, Equatable {
    let decision: LaunchDecision?
    let count: Int?
    let level: ProtectLevel?
    let lifeActionKey: String?
    let lifeActionOutcome: LifeActionOutcome?
    let stateProblem: StateProblem?
    let cause: CrashCause?
    let uncountedReason: UncountedReason?
    let phase: LaunchPhase?
    let deadline: Duration?
    let exhaustedAction: ExhaustedLevels?
    let stateDirectory: String?
    let stateDirectoryReason: String?

    init(
      decision: LaunchDecision? = nil, count: Int? = nil, level: ProtectLevel? = nil, lifeActionKey: String? = nil,
      lifeActionOutcome: LifeActionOutcome? = nil, stateProblem: StateProblem? = nil, cause: CrashCause? = nil,
      uncountedReason: UncountedReason? = nil, phase: LaunchPhase? = nil, deadline: Duration? = nil,
      exhaustedAction: ExhaustedLevels? = nil, stateDirectory: String? = nil, stateDirectoryReason: String? = nil
    ) {
      self.decision = decision
      self.count = count
      self.level = level
      self.lifeActionKey = lifeActionKey
      self.lifeActionOutcome = lifeActionOutcome
      self.stateProblem = stateProblem
      self.cause = cause
      self.uncountedReason = uncountedReason
      self.phase = phase
      self.deadline = deadline
      self.exhaustedAction = exhaustedAction
      self.stateDirectory = stateDirectory
      self.stateDirectoryReason = stateDirectoryReason
    }

    /// Events compare their fields, never the boxes' identity.
    static func == (lhs: Payload, rhs: Payload) -> Bool {
      lhs.decision == rhs.decision && lhs.count == rhs.count && lhs.level == rhs.level
        && lhs.lifeActionKey == rhs.lifeActionKey && lhs.lifeActionOutcome == rhs.lifeActionOutcome
        && lhs.stateProblem == rhs.stateProblem && lhs.cause == rhs.cause && lhs.uncountedReason == rhs.uncountedReason
        && lhs.phase == rhs.phase && lhs.deadline == rhs.deadline && lhs.exhaustedAction == rhs.exhaustedAction
        && lhs.stateDirectory == rhs.stateDirectory && lhs.stateDirectoryReason == rhs.stateDirectoryReason
    }
  }

  private init(_ kind: Kind, _ payload: Payload?) {
    self.kind = kind
    self.payload = payload
  }

  /// An event without a payload; the constants below are compiled into the caller.
  @usableFromInline init(_ kind: Kind) { self.init(kind, nil) }

  /// `finishLaunching` decided; the decision says why.
  public static func launch(_ decision: LaunchDecision) -> LaunchProtectionEvent {
    LaunchProtectionEvent(.launch, Payload(decision: decision))
  }

  /// Protect mode was entered; the level was persisted before this event.
  public static func protectEnter(count: Int, level: ProtectLevel) -> LaunchProtectionEvent {
    LaunchProtectionEvent(.protectEnter, Payload(count: count, level: level))
  }

  /// `protectFinished()` was called.
  public static func protectFinish(level: ProtectLevel) -> LaunchProtectionEvent {
    LaunchProtectionEvent(.protectFinish, Payload(level: level))
  }

  /// The held launch is about to run in this process.
  @_alwaysEmitIntoClient
  public static var relaunch: LaunchProtectionEvent { LaunchProtectionEvent(.relaunch) }

  /// `launchingFinished()` persisted count 0.
  @_alwaysEmitIntoClient
  public static var launchingFinished: LaunchProtectionEvent { LaunchProtectionEvent(.launchingFinished) }

  /// A life action was handled.
  public static func lifeAction(key: String, outcome: LifeActionOutcome) -> LaunchProtectionEvent {
    LaunchProtectionEvent(.lifeAction, Payload(lifeActionKey: key, lifeActionOutcome: outcome))
  }

  /// The persisted state had a problem (reported, never fatal).
  public static func stateProblem(_ problem: StateProblem) -> LaunchProtectionEvent {
    LaunchProtectionEvent(.stateProblem, Payload(stateProblem: problem))
  }

  /// `handleException` recorded a cause.
  public static func exceptionRecorded(_ cause: CrashCause) -> LaunchProtectionEvent {
    LaunchProtectionEvent(.exceptionRecorded, Payload(cause: cause))
  }

  /// This launch ended cleanly before finishing (`exit(0)`), so it will not count.
  public static func uncountedExit(_ reason: UncountedReason) -> LaunchProtectionEvent {
    LaunchProtectionEvent(.uncountedExit, Payload(uncountedReason: reason))
  }

  /// `phase` ran past `deadline`; the process is about to be ended by SIGABRT and the next
  /// launch counts it.
  public static func launchDeadlineExceeded(phase: LaunchPhase, deadline: Duration) -> LaunchProtectionEvent {
    LaunchProtectionEvent(.launchDeadlineExceeded, Payload(phase: phase, deadline: deadline))
  }

  /// A stop was requested during the launch (SIGTERM or `stopRequested()`), recorded in the
  /// sentinel: this launch will not count, whatever ends the process.
  @_alwaysEmitIntoClient
  public static var stopRequested: LaunchProtectionEvent { LaunchProtectionEvent(.stopRequested) }

  /// Every level was attempted and the launch died again; `action` is what happens now.
  public static func levelsExhausted(count: Int, level: ProtectLevel, action: ExhaustedLevels) -> LaunchProtectionEvent
  {
    LaunchProtectionEvent(.levelsExhausted, Payload(count: count, level: level, exhaustedAction: action))
  }

  /// The state is kept in `directory`, the private subdirectory of a shared one, for `reason`.
  public static func privateStateDirectory(_ directory: String, reason: String) -> LaunchProtectionEvent {
    LaunchProtectionEvent(.privateStateDirectory, Payload(stateDirectory: directory, stateDirectoryReason: reason))
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
