import ChaosKit
import Failpoints
import Foundation

/// Harness throughput: launches per second through `chaos run` machinery, beside spawning and
/// reaping the same target directly.
public struct ThroughputBenchmark: Sendable {
  public var target: String
  /// Launches per measurement.
  public var launches: Int
  public var workDirectory: String

  /// Creates the benchmark.
  public init(target: String, launches: Int, workDirectory: String) {
    self.target = target
    self.launches = launches
    self.workDirectory = workDirectory
  }

  /// One row: a scenario kind at a job count.
  public struct Row: Codable, Sendable {
    public var scenario: String
    public var jobs: Int
    public var harnessLaunchesPerSecond: Double
    public var directLaunchesPerSecond: Double
    /// Harness time / direct time for the same launches, the median over the rounds (1.0 = no
    /// overhead): a round the machine slowed counts once, not by its weight.
    public var overhead: Double
  }

  /// Runs clean and crash 1-launch scenarios at jobs 1 and 2.
  public func run(progress: (String) -> Void = { _ in }) throws -> [Row] {
    let kinds: [(String, String, String)] = [
      ("clean", "", "{ outcome: finished }"), ("crash", "task.config=segv", "{ outcome: crash, signal: SIGSEGV }"),
    ]
    var rows: [Row] = []
    for (kind, failpoints, expect) in kinds {
      let folder = workDirectory + "/throughput-\(kind)"
      try? FileManager.default.removeItem(atPath: folder)
      try FileManager.default.createDirectory(atPath: folder + "/scenarios", withIntermediateDirectories: true)
      var scenarios: [Scenario] = []
      for index in 0..<launches {
        let path = folder + "/scenarios/s\(index).yaml"
        try
          "name: \(kind) \(index)\napp: { threshold: 1000000 }\nlaunches:\n  - failpoints: \"\(failpoints)\"\n    expect: \(expect)\n"
          .write(toFile: path, atomically: true, encoding: .utf8)
        scenarios.append(try ScenarioLoader.load(path: path))
      }
      for jobs in [1, 2] {
        progress("throughput: \(kind), jobs \(jobs)")
        var options = RunOptions()
        options.jobs = jobs
        options.referenceTarget = target
        options.artifactsDirectory = folder + "/artifacts"
        // Side by side: the harness and the direct spawns alternate in rounds, so a noisy
        // moment of the machine costs both alike.
        var harnessSeconds = 0.0
        var directSeconds = 0.0
        var ratios: [Double] = []
        let rounds = min(Self.rounds, launches)
        for round in 0..<rounds {
          let chunk = Array(scenarios[(round * launches / rounds)..<((round + 1) * launches / rounds)])
          let start = MonotonicClock.nanoseconds()
          let results = SuiteRunner(options: options).run(chunk) { _, _, _ in }
          let harnessRound = Double(MonotonicClock.nanoseconds() - start) / 1e9
          harnessSeconds += harnessRound
          if let failed = results.first(where: { !$0.passed }) {
            throw ScenarioError(
              path: failed.path, line: 0, column: 0, message: failed.messages.joined(separator: "\n"))
          }
          let directRound = try direct(
            failpoints: failpoints, jobs: jobs, first: (jobs - 1) * launches + round * launches / rounds,
            count: chunk.count, folder: folder)
          directSeconds += directRound
          ratios.append(harnessRound / directRound)
        }
        let harnessRate = Double(launches) / harnessSeconds
        let directRate = Double(launches) / directSeconds
        rows.append(
          Row(
            scenario: kind, jobs: jobs, harnessLaunchesPerSecond: harnessRate, directLaunchesPerSecond: directRate,
            overhead: ratios.sorted()[ratios.count / 2]))
      }
    }
    return rows
  }

  /// Rounds the launches of one row are split into, harness and direct alternating.
  static let rounds = 10

  /// `count` launches with no harness: spawn, blocking waitpid, a fresh state directory each
  /// (numbered from `first`).
  private func direct(failpoints: String, jobs: Int, first: Int, count: Int, folder: String) throws -> Double {
    let start = MonotonicClock.nanoseconds()
    let errors = DirectErrors()
    DispatchQueue.concurrentPerform(iterations: jobs) { lane in
      for index in stride(from: first + lane, to: first + count, by: jobs) {
        do {
          _ = try BenchProcess(target: target).run(
            failpoints: failpoints, app: "{\"threshold\": 1000000}", stateDirectory: folder + "/direct-state-\(index)",
            events: folder + "/direct-\(index).ndjson", readEvents: false)
        } catch {
          errors.record("\(error)")
        }
      }
    }
    if let error = errors.first { throw ScenarioError(path: target, line: 0, column: 0, message: error) }
    return Double(MonotonicClock.nanoseconds() - start) / 1e9
  }
}

final class DirectErrors: @unchecked Sendable {
  private let lock = NSLock()
  private var errors: [String] = []
  func record(_ error: String) {
    lock.lock()
    errors.append(error)
    lock.unlock()
  }
  var first: String? {
    lock.lock()
    defer { lock.unlock() }
    return errors.first
  }
}
