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
