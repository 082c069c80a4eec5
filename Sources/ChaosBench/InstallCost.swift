/// The first `CrashCapture.install` of fresh processes, with the unwind tables prefaulted
/// (the default) and without, measured alternately.
public struct CrashCaptureInstallCost: Codable, Sendable {
  /// `prefaultUnwindTables = true`.
  public var prefaulted: LatencySummary
  /// `prefaultUnwindTables = false`.
  public var notPrefaulted: LatencySummary

  /// Summarises samples in nanoseconds.
  public init(prefaulted: [UInt64], notPrefaulted: [UInt64]) {
    self.prefaulted = LatencySummary(nanoseconds: prefaulted)
    self.notPrefaulted = LatencySummary(nanoseconds: notPrefaulted)
  }
}

/// An inert ChaosProbe's cost, from fresh processes of the bench helper.
public struct InertProbeCost: Codable, Sendable {
  /// The first `declare` + `attach` × 2 of each process (reads the environment once).
  public var firstCall: LatencySummary
  /// Later calls (each process's median of 1000).
  public var repeated: LatencySummary
  /// Whether any run installed a signal handler or saw itself active (must be false).
  public var anyActive: Bool

  /// Summarises samples in nanoseconds.
  public init(firstCall: [UInt64], repeated: [UInt64], anyActive: Bool) {
    self.firstCall = LatencySummary(nanoseconds: firstCall)
    self.repeated = LatencySummary(nanoseconds: repeated)
    self.anyActive = anyActive
  }
}

/// A fresh process's one `finishLaunching` (after a crash) and `launchingFinished`, default
/// configuration: what every launch of an app pays, one-time set-up included.
public struct FirstLaunchCost: Codable, Sendable {
  /// `finishLaunching`, counting the previous process's unfinished launch.
  public var finishLaunchingAfterCrash: LatencySummary
  /// `launchingFinished`.
  public var launchingFinished: LatencySummary
  /// Both, per process.
  public var together: LatencySummary

  /// The summaries.
  public init(finishLaunchingAfterCrash: LatencySummary, launchingFinished: LatencySummary, together: LatencySummary) {
    self.finishLaunchingAfterCrash = finishLaunchingAfterCrash
    self.launchingFinished = launchingFinished
    self.together = together
  }
}
