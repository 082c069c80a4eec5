import ChaosKit
import Foundation

/// `chaos explore`'s throughput: the same seeded sequences at `--jobs` 1 and 2, in launches
/// per second, with how many launches hang on purpose (killed once their failpoint fired, or
/// ended by a launch deadline), beside `chaos run`'s clean and crash rates from the
/// throughput section.
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
    return try [1, 2].map { jobs in
      progress("explore throughput, jobs \(jobs)")
      var options = Explorer.Options(target: target)
      options.seed = 1
      options.sequences = sequences
      options.jobs = jobs
      options.outDirectory = workDirectory + "/explore-out"
      options.artifactsDirectory = workDirectory + "/explore-\(jobs)"
      let report = try Explorer(options: options).run()
      return Row(
        jobs: jobs, sequences: report.sequences, launches: report.launches, seconds: report.seconds,
        launchesPerSecond: Double(report.launches) / max(report.seconds, 1e-9), hangLaunches: hangs)
    }
  }
}
