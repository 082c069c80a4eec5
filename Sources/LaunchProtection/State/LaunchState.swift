#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
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
  /// Seconds since 1970 when the launch began.
  public var startedAt: Double
  /// Seconds since 1970 when a stop was requested during the launch (a clean shutdown: the
  /// launch is not counted, whatever ends the process afterwards).
  public var stopRequestedAt: Double?
  /// The dependency the launch was waiting for (`LaunchOrganizer.waitForDependency`): a launch
  /// that ends with this set is a dependency outage, not a launch crash.
  public var waitingFor: String?

  /// Creates a record.
  public init(
    process: ProcessIdentity, launchID: String, phase: LaunchPhase, startedAt: Double, stopRequestedAt: Double? = nil
  ) {
    self.process = process
    self.launchID = launchID
    self.phase = phase
    self.startedAt = startedAt
    self.stopRequestedAt = stopRequestedAt
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
  /// Seconds since 1970 when this was decided.
  public var decidedAt: Double

  /// Creates a record of an outage.
  public init(dependency: String, launchesInARow: Int, pid: Int32, decidedAt: Double) {
    self.dependency = dependency
    self.launchesInARow = launchesInARow
    self.pid = pid
    self.decidedAt = decidedAt
  }
}

/// What an unfinished launch was doing.
public enum LaunchPhase: String, Codable, Sendable {
  /// Running the normal launch.
  case launching
  /// Running a protect-mode repair.
  case protecting
  /// Running the launch again after `protectFinished()`.
  case relaunching
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
  /// Seconds since 1970.
  public var recordedAt: Double

  /// Creates a cause.
  public init(type: String, detail: String? = nil, pid: Int32? = nil, afterLaunch: Bool = false, recordedAt: Double) {
    self.type = type
    self.detail = detail
    self.pid = pid
    self.afterLaunch = afterLaunch
    self.recordedAt = recordedAt
  }
}

/// An unfinished launch that was not counted as a crash.
public struct UncountedExit: Codable, Sendable, Equatable {
  /// Why it did not count.
  public var reason: UncountedReason
  /// The process that exited.
  public var pid: Int32
  /// Seconds since 1970 when this was decided.
  public var decidedAt: Double

  /// Creates a record of an uncounted exit.
  public init(reason: UncountedReason, pid: Int32, decidedAt: Double) {
    self.reason = reason
    self.pid = pid
    self.decidedAt = decidedAt
  }
}

/// Why an unfinished launch is not a crash.
public enum UncountedReason: String, Codable, Sendable {
  /// The process called `exit(0)` during launch.
  case cleanExit
  /// A stop was requested during the launch (a clean shutdown).
  case terminated
  /// The machine rebooted since (boot id changed).
  case reboot
}
