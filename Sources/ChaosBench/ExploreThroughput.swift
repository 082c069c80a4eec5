import ChaosKit
import Foundation

/// `chaos explore`'s throughput: the same seeded sequences at `--jobs` 1 and 2, in launches
/// per second, with how many launches hang on purpose (killed once their failpoint fired, or
/// ended by a launch deadline), beside `chaos run`'s clean and crash rates from the
/// throughput section; and where a launch's time goes (`RunProfile`): CPU per launch of the
/// harness and of the targets it reaped, and each part's wall time per launch.
public struct ExploreThroughputBenchmark: Sendable {
  /// One jobs setting.
  public struct Row: Codable, Sendable {
    public var jobs: Int
    public var sequences: Int
    public var launches: Int
    public var seconds: Double
    public var launchesPerSecond: Double
    /// Launches that hang on purpose (killed once the hang is seen, or ended by the launch deadline).
    public var hangLaunches: Int
    /// CPU milliseconds per launch: the harness's own (every thread) and its reaped children's.
    public var harnessCPUMilliseconds: Double?
    public var targetCPUMilliseconds: Double?
    /// Wall milliseconds per launch of each part, summed over the jobs (`RunProfile`), largest first.
    public var parts: [Part]?
  }

  /// A part of a launch's time.
  public struct Part: Codable, Sendable {
    public var name: String
    public var millisecondsPerLaunch: Double
  }

  public var target: String
  public var sequences: Int
  public var workDirectory: String

  /// Creates the benchmark.
  public init(target: String, sequences: Int, workDirectory: String) {
    self.target = target
    self.sequences = sequences
    self.workDirectory = workDirectory
  }

  /// Runs seed 1's first `sequences` sequences at jobs 1, then 2.
  public func run(progress: (String) -> Void = { _ in }) throws -> [Row] {
    let generator = SequenceGenerator(declared: TargetFailpoints.list(target: target)?.failpoints ?? [])
    let hangs = (0..<sequences).reduce(0) { total, index in
      total
        + generator.sequence(seed: 1, index: index).steps.filter {
          if case .fault(_, .hang) = $0.action { true } else { false }
        }.count
    }
    RunProfile.enable()
    return try [1, 2].map { jobs in
      progress("explore throughput, jobs \(jobs)")
      var options = Explorer.Options(target: target)
      options.seed = 1
      options.sequences = sequences
      options.jobs = jobs
      options.outDirectory = workDirectory + "/explore-out"
      options.artifactsDirectory = workDirectory + "/explore-\(jobs)"
      _ = RunProfile.take()
      let before = (Self.cpu(RUSAGE_SELF), Self.cpu(RUSAGE_CHILDREN))
      let report = try Explorer(options: options).run()
      let after = (Self.cpu(RUSAGE_SELF), Self.cpu(RUSAGE_CHILDREN))
      let launches = Double(max(1, report.launches))
      return Row(
        jobs: jobs, sequences: report.sequences, launches: report.launches, seconds: report.seconds,
        launchesPerSecond: Double(report.launches) / max(report.seconds, 1e-9), hangLaunches: hangs,
        harnessCPUMilliseconds: (after.0 - before.0) * 1000 / launches,
        targetCPUMilliseconds: (after.1 - before.1) * 1000 / launches,
        parts: RunProfile.take().map { Part(name: $0.part, millisecondsPerLaunch: $0.seconds * 1000 / launches) })
    }
  }

  /// User + system CPU seconds of `who` (`RUSAGE_SELF` or `RUSAGE_CHILDREN`).
  static func cpu(_ who: __rusage_who) -> Double {
    var usage = rusage()
    getrusage(__rusage_who_t(who.rawValue), &usage)
    return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec)
      + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
  }
}
