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
  public var ignored: [IgnoredLaunch]
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
}

/// An unfinished launch found in the state and not counted, with the reason.
public struct IgnoredLaunch: Sendable, Equatable {
  /// The launch's record.
  public var record: LaunchRecord
  /// Why it was not counted.
  public var reason: IgnoredReason

  /// An ignored launch.
  public init(record: LaunchRecord, reason: IgnoredReason) {
    self.record = record
    self.reason = reason
  }
}

/// Why an unfinished launch found in the state was not counted. A struct, not an enum, so that
/// a later version can add a reason without breaking a caller's `switch`: compare with the
/// values below, or switch over ``rawValue`` and keep a `default`.
public struct IgnoredReason: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
  /// The name events and log lines carry (`stillRunning`, `reboot`, `terminated`).
  public let rawValue: String

  @usableFromInline init(_ rawValue: String) { self.rawValue = rawValue }

  /// The reason this version knows by that name; nil for any other.
  public init?(rawValue: String) {
    guard let known = Self.all.first(where: { $0.rawValue == rawValue }) else { return nil }
    self = known
  }

  /// Its process is still running (a parallel launch).
  @_alwaysEmitIntoClient
  public static var stillRunning: IgnoredReason { IgnoredReason("stillRunning") }
  /// The machine rebooted since it started.
  @_alwaysEmitIntoClient
  public static var reboot: IgnoredReason { IgnoredReason("reboot") }
  /// A stop was requested during it (SIGTERM seen by the organizer, or `stopRequested()`).
  @_alwaysEmitIntoClient
  public static var terminated: IgnoredReason { IgnoredReason("terminated") }

  /// Every reason this version knows.
  public static let all: [IgnoredReason] = [.stillRunning, .reboot, .terminated]

  /// The name.
  public var description: String { rawValue }
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
