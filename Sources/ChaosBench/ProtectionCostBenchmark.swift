import ChaosKit
import Foundation
import LaunchProtection
import Synchronization

/// The cost LaunchProtection adds to a launch: the durable read-modify-write of
/// `finishLaunching` and of `launchingFinished`, against a plain launch that does not use it.
public struct ProtectionCostBenchmark: Sendable {
  /// Launch pairs to run (each pair: a crashed launch, then a clean one).
  public var iterations: Int
  /// Where the state directory is created (a real file system: fsync is the point).
  public var workDirectory: String

  /// Creates the benchmark.
  public init(iterations: Int = 1000, workDirectory: String = NSTemporaryDirectory()) {
    self.iterations = iterations
    self.workDirectory = workDirectory
  }

  /// Results, in microseconds.
  public struct Report: Codable, Sendable {
    /// `finishLaunching` after a launch that crashed: read + increment + durable write.
    public var finishLaunchingAfterCrash: LatencySummary
    /// `finishLaunching` after a clean launch: read + sentinel + durable write.
    public var finishLaunchingAfterCleanLaunch: LatencySummary
    /// `launchingFinished`: reset + durable write.
    public var launchingFinished: LatencySummary
    /// The same launch closure called directly, without LaunchProtection.
    public var plainLaunch: LatencySummary
  }

  /// Runs the benchmark in this process, simulating each launch's identity.
  public func run() throws -> Report {
    let directory = workDirectory + "/protection-bench-\(getpid())"
    try? FileManager.default.removeItem(atPath: directory)
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let pid = Mutex<Int32>(1_000_000)
    func organizer() -> LaunchOrganizer {
      let identity = pid.withLock { value in
        value += 1
        return ProcessIdentity(pid: value, startTime: UInt64(value), bootID: "bench")
      }
      var configuration = LaunchOrganizer.Configuration(stateDirectory: directory)
      configuration.ignoreTermination = false
      configuration.environment = LaunchEnvironment(
        current: { identity }, isAlive: { _ in false }, executableID: { "bench" })
      return LaunchOrganizer(configuration: configuration)
    }
    let sink = Mutex(0)
    let launch: @Sendable () -> Void = { sink.withLock { $0 &+= 1 } }
    var afterCrash: [UInt64] = []
    var afterClean: [UInt64] = []
    var finished: [UInt64] = []
    var plain: [UInt64] = []
    for _ in 0..<iterations {
      let crashing = organizer()
      afterClean.append(
        measure { crashing.finishLaunching(policy: .threshold(Int.max), launch: launch, protect: { _ in }) })
      // `crashing` is abandoned unfinished: to the next launch it is a launch crash.
      let clean = organizer()
      afterCrash.append(
        measure { clean.finishLaunching(policy: .threshold(Int.max), launch: launch, protect: { _ in }) })
      finished.append(measure { clean.launchingFinished() })
      plain.append(measure(launch))
    }
    return Report(
      finishLaunchingAfterCrash: LatencySummary(nanoseconds: afterCrash),
      finishLaunchingAfterCleanLaunch: LatencySummary(nanoseconds: afterClean),
      launchingFinished: LatencySummary(nanoseconds: finished),
      plainLaunch: LatencySummary(nanoseconds: plain))
  }

  private func measure(_ body: () -> Void) -> UInt64 {
    let start = MonotonicNanoseconds.now()
    body()
    return MonotonicNanoseconds.now() - start
  }
}
