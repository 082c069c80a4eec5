#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// The persisted protection state: one small versioned JSON file.
public struct LaunchState: Codable, Sendable, Equatable {
  /// The format version this library writes and reads.
  public static let currentVersion = 1

  /// Format version of the file.
  public var version = LaunchState.currentVersion
  /// Consecutive launches that died before `launchingFinished()`.
  public var consecutiveCrashes = 0
  /// The sentinels: launches that started and have not finished (several processes may share a directory).
  public var launchesInProgress: [LaunchRecord] = []
  /// The protect level whose repair was last attempted and not yet followed by a finished launch.
  public var attemptedProtectLevel: Int?
  /// Identifier of the executable that wrote the state last.
  public var executableID: String?
  /// The last crash cause recorded (by the crash handler hand-off or `handleException`).
  public var lastCrashCause: CrashCause?
  /// The last unfinished launch that was deliberately not counted, and why.
  public var lastUncountedExit: UncountedExit?
  /// The last launch that ended while waiting for a dependency (not a launch crash), with how
  /// many did in a row; nil again once a launch finishes.
  public var lastDependencyOutage: DependencyOutage?

  /// An empty state: nothing counted.
  public init() {}
}

/// A launch that has begun: the sentinel written before any launch code runs.
public struct LaunchRecord: Codable, Sendable, Equatable {
  /// Which process.
  public var process: ProcessIdentity
  /// Distinguishes several launches in one process (protect → relaunch keeps the same record):
  /// a random version 4 UUID in uppercase, as `UUID().uuidString` writes it, for the launches
  /// the organizer records.
  public var launchID: String
  /// What the launch was doing when last written.
  public var phase: LaunchPhase
  /// Seconds since 1970 when the launch began: the state file's `startedAt`, kept as read so
  /// that a rewrite is byte-identical (``startDate`` is its public form).
  var startedSeconds: Double
  /// Seconds since 1970 when a stop was requested, as the state file holds them
  /// (``stopRequestDate``).
  var stopRequestedSeconds: Double?
  /// The dependency the launch was waiting for (`LaunchOrganizer.waitForDependency`): a launch
  /// that ends with this set is a dependency outage, not a launch crash.
  public var waitingFor: String?

  // The keys of the state file and of Codable, in 0.2.0's order (Codable encodes in this one).
  private enum CodingKeys: String, CodingKey {
    case process, launchID, phase
    case startedSeconds = "startedAt"
    case stopRequestedSeconds = "stopRequestedAt"
    case waitingFor
  }

  /// Creates a record.
  public init(
    process: ProcessIdentity, launchID: String, phase: LaunchPhase, startDate: Date, stopRequestDate: Date? = nil
  ) {
    self.init(
      process: process, launchID: launchID, phase: phase, startedSeconds: startDate.timeIntervalSince1970,
      stopRequestedSeconds: stopRequestDate?.timeIntervalSince1970)
  }

  /// Creates a record from the state file's seconds since 1970.
  init(
    process: ProcessIdentity, launchID: String, phase: LaunchPhase, startedSeconds: Double,
    stopRequestedSeconds: Double? = nil
  ) {
    self.process = process
    self.launchID = launchID
    self.phase = phase
    self.startedSeconds = startedSeconds
    self.stopRequestedSeconds = stopRequestedSeconds
  }

  /// When the launch began.
  public var startDate: Date {
    get { Date(timeIntervalSince1970: startedSeconds) }
    set { startedSeconds = newValue.timeIntervalSince1970 }
  }

  /// When a stop was requested during the launch (a clean shutdown: the launch is not counted,
  /// whatever ends the process afterwards); nil when none was.
  public var stopRequestDate: Date? {
    get { stopRequestedSeconds.map(Date.init(timeIntervalSince1970:)) }
    set { stopRequestedSeconds = newValue?.timeIntervalSince1970 }
  }
}

/// A launch that ended while it waited for a dependency (a database, a config service): not
/// counted as a launch crash, and never a reason to repair.
public struct DependencyOutage: Codable, Sendable, Equatable {
  /// The dependency's name, as given to `waitForDependency`.
  public var dependency: String
  /// Launches in a row that ended waiting for a dependency (1 for the first); back off by it.
  public var launchesInARow: Int
  /// The process that ended.
  public var pid: Int32
  /// Seconds since 1970 when this was decided, as the state file holds them (``decisionDate``).
  var decidedSeconds: Double
  /// Seconds since 1970 when the first outage of this run of starts was decided (``since``);
  /// nil in a file written before 1.0, which did not keep it.
  var firstDecidedSeconds: Double?

  // The keys of the state file and of Codable, in 0.2.0's order (Codable encodes in this one),
  // then 1.0's optional one.
  private enum CodingKeys: String, CodingKey {
    case dependency, launchesInARow, pid
    case decidedSeconds = "decidedAt"
    case firstDecidedSeconds = "firstDecidedAt"
  }

  /// Creates a record of an outage.
  public init(dependency: String, launchesInARow: Int, pid: Int32, decisionDate: Date) {
    self.init(
      dependency: dependency, launchesInARow: launchesInARow, pid: pid,
      decidedSeconds: decisionDate.timeIntervalSince1970)
  }

  /// Creates a record of the latest of `launchesInARow` outages, the first of which was
  /// decided at `since`.
  public init(dependency: String, launchesInARow: Int, pid: Int32, decisionDate: Date, since: Date) {
    self.init(
      dependency: dependency, launchesInARow: launchesInARow, pid: pid,
      decidedSeconds: decisionDate.timeIntervalSince1970, firstDecidedSeconds: since.timeIntervalSince1970)
  }

  /// Creates a record of an outage from the state file's seconds since 1970.
  init(dependency: String, launchesInARow: Int, pid: Int32, decidedSeconds: Double, firstDecidedSeconds: Double? = nil)
  {
    self.dependency = dependency
    self.launchesInARow = launchesInARow
    self.pid = pid
    self.decidedSeconds = decidedSeconds
    self.firstDecidedSeconds = firstDecidedSeconds
  }

  /// When this was decided.
  public var decisionDate: Date {
    get { Date(timeIntervalSince1970: decidedSeconds) }
    set { decidedSeconds = newValue.timeIntervalSince1970 }
  }

  /// When the first of these starts in a row ended: the outage's beginning. A record written
  /// before 1.0 did not keep it: its ``decisionDate`` then.
  public var since: Date {
    get { Date(timeIntervalSince1970: firstDecidedSeconds ?? decidedSeconds) }
    set { firstDecidedSeconds = newValue.timeIntervalSince1970 }
  }
}

/// Why a process died, as far as anyone saw.
public struct CrashCause: Codable, Sendable, Equatable {
  /// A short type: a signal name (`SIGSEGV`) or a reporter's exception name.
  public var type: String
  /// Free-form detail (thread, top frames, message).
  public var detail: String?
  /// The pid of the process that crashed.
  public var pid: Int32?
  /// Whether the crash happened after `launchingFinished()` (recorded, never counted).
  public var afterLaunch: Bool
  /// Seconds since 1970 when it was recorded, as the state file holds them (``recordDate``).
  var recordedSeconds: Double

  // The keys of the state file and of Codable, in 0.2.0's order (Codable encodes in this one).
  private enum CodingKeys: String, CodingKey {
    case type, detail, pid, afterLaunch
    case recordedSeconds = "recordedAt"
  }

  /// Creates a cause.
  public init(type: String, detail: String? = nil, pid: Int32? = nil, afterLaunch: Bool = false, recordDate: Date) {
    self.init(
      type: type, detail: detail, pid: pid, afterLaunch: afterLaunch, recordedSeconds: recordDate.timeIntervalSince1970)
  }

  /// Creates a cause from the state file's seconds since 1970.
  init(type: String, detail: String? = nil, pid: Int32? = nil, afterLaunch: Bool = false, recordedSeconds: Double) {
    self.type = type
    self.detail = detail
    self.pid = pid
    self.afterLaunch = afterLaunch
    self.recordedSeconds = recordedSeconds
  }

  /// When it was recorded.
  public var recordDate: Date {
    get { Date(timeIntervalSince1970: recordedSeconds) }
    set { recordedSeconds = newValue.timeIntervalSince1970 }
  }
}

/// An unfinished launch that was not counted as a crash.
public struct UncountedExit: Codable, Sendable, Equatable {
  /// Why it did not count.
  public var reason: UncountedReason
  /// The process that exited.
  public var pid: Int32
  /// Seconds since 1970 when this was decided, as the state file holds them (``decisionDate``).
  var decidedSeconds: Double

  // The keys of the state file and of Codable, in 0.2.0's order (Codable encodes in this one).
  private enum CodingKeys: String, CodingKey {
    case reason, pid
    case decidedSeconds = "decidedAt"
  }

  /// Creates a record of an uncounted exit.
  public init(reason: UncountedReason, pid: Int32, decisionDate: Date) {
    self.init(reason: reason, pid: pid, decidedSeconds: decisionDate.timeIntervalSince1970)
  }

  /// Creates a record of an uncounted exit from the state file's seconds since 1970.
  init(reason: UncountedReason, pid: Int32, decidedSeconds: Double) {
    self.reason = reason
    self.pid = pid
    self.decidedSeconds = decidedSeconds
  }

  /// When this was decided.
  public var decisionDate: Date {
    get { Date(timeIntervalSince1970: decidedSeconds) }
    set { decidedSeconds = newValue.timeIntervalSince1970 }
  }
}
