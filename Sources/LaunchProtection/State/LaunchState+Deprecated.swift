#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

// 0.2.0's timestamps, `Double` seconds since 1970, kept compiling: points in time are `Date`
// in the rest of the API. The state file still writes seconds since 1970 under these names.

extension LaunchRecord {
  /// Creates a record from seconds since 1970.
  @available(*, deprecated, message: "use init(process:launchID:phase:startDate:stopRequestDate:)")
  public init(
    process: ProcessIdentity, launchID: String, phase: LaunchPhase, startedAt: Double, stopRequestedAt: Double? = nil
  ) {
    self.init(
      process: process, launchID: launchID, phase: phase, startedSeconds: startedAt,
      stopRequestedSeconds: stopRequestedAt)
  }

  /// Seconds since 1970 when the launch began.
  @available(*, deprecated, message: "use startDate, a Date")
  public var startedAt: Double {
    get { startedSeconds }
    set { startedSeconds = newValue }
  }

  /// Seconds since 1970 when a stop was requested during the launch.
  @available(*, deprecated, message: "use stopRequestDate, a Date")
  public var stopRequestedAt: Double? {
    get { stopRequestedSeconds }
    set { stopRequestedSeconds = newValue }
  }
}

extension DependencyOutage {
  /// Creates a record of an outage decided at seconds since 1970.
  @available(*, deprecated, message: "use init(dependency:launchesInARow:pid:decisionDate:)")
  public init(dependency: String, launchesInARow: Int, pid: Int32, decidedAt: Double) {
    self.init(dependency: dependency, launchesInARow: launchesInARow, pid: pid, decidedSeconds: decidedAt)
  }

  /// Seconds since 1970 when this was decided.
  @available(*, deprecated, message: "use decisionDate, a Date")
  public var decidedAt: Double {
    get { decidedSeconds }
    set { decidedSeconds = newValue }
  }
}

extension CrashCause {
  /// Creates a cause recorded at seconds since 1970.
  @available(*, deprecated, message: "use init(type:detail:pid:afterLaunch:recordDate:)")
  public init(type: String, detail: String? = nil, pid: Int32? = nil, afterLaunch: Bool = false, recordedAt: Double) {
    self.init(type: type, detail: detail, pid: pid, afterLaunch: afterLaunch, recordedSeconds: recordedAt)
  }

  /// Seconds since 1970 when it was recorded.
  @available(*, deprecated, message: "use recordDate, a Date")
  public var recordedAt: Double {
    get { recordedSeconds }
    set { recordedSeconds = newValue }
  }
}

extension UncountedExit {
  /// Creates a record of an uncounted exit decided at seconds since 1970.
  @available(*, deprecated, message: "use init(reason:pid:decisionDate:)")
  public init(reason: UncountedReason, pid: Int32, decidedAt: Double) {
    self.init(reason: reason, pid: pid, decidedSeconds: decidedAt)
  }

  /// Seconds since 1970 when this was decided.
  @available(*, deprecated, message: "use decisionDate, a Date")
  public var decidedAt: Double {
    get { decidedSeconds }
    set { decidedSeconds = newValue }
  }
}
