import Failpoints
import Foundation

/// How `chaos run` runs scenarios.
public struct RunOptions: Sendable {
  /// Scenarios run at once.
  public var jobs = max(1, ProcessInfo.processInfo.activeProcessorCount)
  /// Run each scenario this many times.
  public var repeatCount = 1
  /// `CHAOS_SEED` for every launch (reproducible probabilistic failpoints).
  public var seed: UInt64?
  /// Run this program instead of each scenario's target.
  public var targetOverride: String?
  /// Keep the artifacts of passing scenarios too.
  public var keepArtifacts = false
  /// Where artifacts go.
  public var artifactsDirectory = FileManager.default.currentDirectoryPath + "/chaos-artifacts"
  /// The reference app, resolved for `target: chaos-target`.
  public var referenceTarget: String?
  /// Keep each process's events and crash frames in its result (`ProcessResult.timeline`), for
  /// the HTML report and the trace files; the artifacts of passing scenarios are deleted.
  public var recordsTimeline = false
  /// When a run is cut (`MonotonicClock.nanoseconds()`; `chaos explore --time`): a launch under
  /// way then has its process groups killed, a request command too, and the scenario ends
  /// there with `ScenarioResult.cutAtLaunch` set; nil: never.
  package var cutoff: UInt64?
  /// The target's failpoints, listed once by the caller (`chaos explore`): scenario names are
  /// checked against it instead of a run of the target per new `CHAOS_APP` (each generated
  /// sequence has its own, and that run was one in ten of exploring's processes).
  package var failpointListing: TargetFailpoints.Listing?

  /// Whether the cutoff has passed.
  package var isCut: Bool { cutoff.map { MonotonicClock.nanoseconds() >= $0 } ?? false }

  /// Seconds until the cutoff (infinite without one).
  package var secondsToCutoff: Double {
    guard let cutoff else { return .infinity }
    let now = MonotonicClock.nanoseconds()
    return cutoff > now ? Double(cutoff - now) / 1e9 : 0
  }

  /// Default options.
  public init() {}
}
