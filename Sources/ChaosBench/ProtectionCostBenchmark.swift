import ChaosKit
import Failpoints
import Foundation
import LaunchProtection
import Synchronization

/// The cost LaunchProtection adds to a launch: the read-modify-write of `finishLaunching` and
/// of `launchingFinished`, in each durability mode, beside a bare `fdatasync` of a 4 KiB write
/// on the same file system and a plain launch that does not use protection. The modes run
/// interleaved, iteration by iteration, so a noisy moment costs each of them alike.
public struct ProtectionCostBenchmark: Sendable {
  /// Launch pairs to run per mode (each pair: a crashed launch, then a clean one).
  public var iterations: Int
  /// Where the state directories are created (a real file system: fsync is the point).
  public var workDirectory: String

  /// Creates the benchmark.
  public init(iterations: Int = 1000, workDirectory: String = NSTemporaryDirectory()) {
    self.iterations = iterations
    self.workDirectory = workDirectory
  }

  /// One durability mode's figures, in microseconds.
  public struct ModeCost: Codable, Sendable {
    /// `Durability` raw value: `processCrash` or `powerLoss`.
    public var durability: String
    /// `finishLaunching` after a launch that crashed: read + count + write.
    public var finishLaunchingAfterCrash: LatencySummary
    /// `finishLaunching` after a clean launch: read + sentinel + write.
    public var finishLaunchingAfterCleanLaunch: LatencySummary
    /// `launchingFinished`: reset + write.
    public var launchingFinished: LatencySummary
    /// Per iteration, `finishLaunching` after a crash plus the `launchingFinished` that follows.
    public var afterCrashPlusFinished: LatencySummary
  }

  /// Results, in microseconds.
  public struct Report: Codable, Sendable {
    /// One entry per durability mode, the default first.
    public var modes: [ModeCost]
    /// `pwrite` of 4 KiB in place + `fdatasync`, on the same file system: the floor of any fsync-based write.
    public var bareFdatasync: LatencySummary
    /// Two in-place 4 KiB `pwrite`s (no sync): the floor of this design's launch pair, which
    /// writes one slot in `finishLaunching` and one in `launchingFinished`.
    public var twoBarePwrites: LatencySummary
    /// The processCrash pair's system calls alone (open, lock, read, write, close: 19 of them),
    /// replayed bare on files of the same sizes. Nil in reports written before it was measured.
    public var pairSystemCalls: LatencySummary?
    /// The same launch closure called directly, without LaunchProtection.
    public var plainLaunch: LatencySummary
  }

  private struct Samples {
    var afterCrash: [UInt64] = []
    var afterClean: [UInt64] = []
    var finished: [UInt64] = []
    var pair: [UInt64] = []
  }

  /// Runs the benchmark in this process, simulating each launch's identity.
  public func run() throws -> Report {
    let root = workDirectory + "/protection-bench-\(getpid())"
    try? FileManager.default.removeItem(atPath: root)
    try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: root) }
    let pid = Mutex<Int32>(1_000_000)
    func organizer(_ durability: Durability) -> LaunchOrganizer {
      let identity = pid.withLock { value in
        value += 1
        return ProcessIdentity(pid: value, startTime: UInt64(value), bootID: "bench")
      }
      var configuration = LaunchOrganizer.Configuration(stateDirectory: root + "/" + durability.rawValue)
      configuration.ignoreTermination = false
      configuration.durability = durability
      configuration.environment = LaunchEnvironment(
        current: { identity }, isAlive: { _ in false }, executableID: { "bench" })
      return LaunchOrganizer(configuration: configuration)
    }
    let sink = Mutex(0)
    let launch: @Sendable () -> Void = { sink.withLock { $0 &+= 1 } }
    let modes = Durability.allCases
    var samples = [Samples](repeating: Samples(), count: modes.count)
    var plain: [UInt64] = []
    var bare: [UInt64] = []
    var twoPwrites: [UInt64] = []
    var systemCalls: [UInt64] = []
    let bareFile = try BareSyncFile(path: root + "/bare-fdatasync")
    defer { bareFile.close() }
    // Its own file, never synced: two pwrites right after an fdatasync of the same page wait
    // on it (2.0–2.2 µs here instead of 1.5), which made this floor look higher than it is.
    let pwriteFile = try BareSyncFile(path: root + "/bare-pwrites")
    defer { pwriteFile.close() }
    let replay = try LaunchPathSystemCalls(directory: root + "/system-calls")
    defer { replay.deallocate() }
    for _ in 0..<iterations {
      for (index, durability) in modes.enumerated() {
        let crashing = organizer(durability)
        samples[index].afterClean.append(
          measure { crashing.finishLaunching(policy: .threshold(Int.max), launch: launch, protect: { _ in }) })
        // `crashing` is abandoned unfinished: to the next launch it is a launch crash. Its
        // descriptors go, as with a dead process's (the organizer itself stays tracked).
        crashing.stateStore.closeDirectory()
        let clean = organizer(durability)
        let afterCrash = measure {
          clean.finishLaunching(policy: .threshold(Int.max), launch: launch, protect: { _ in })
        }
        let finished = measure { clean.launchingFinished() }
        samples[index].afterCrash.append(afterCrash)
        samples[index].finished.append(finished)
        samples[index].pair.append(afterCrash + finished)
      }
      bare.append(measure { bareFile.writeAndSync() })
      twoPwrites.append(measure { pwriteFile.writeTwoSlots() })
      systemCalls.append(measure { replay.replayPair() })
      plain.append(measure(launch))
    }
    return Report(
      modes: zip(modes, samples).map { durability, samples in
        ModeCost(
          durability: durability.rawValue,
          finishLaunchingAfterCrash: LatencySummary(nanoseconds: samples.afterCrash),
          finishLaunchingAfterCleanLaunch: LatencySummary(nanoseconds: samples.afterClean),
          launchingFinished: LatencySummary(nanoseconds: samples.finished),
          afterCrashPlusFinished: LatencySummary(nanoseconds: samples.pair))
      },
      bareFdatasync: LatencySummary(nanoseconds: bare), twoBarePwrites: LatencySummary(nanoseconds: twoPwrites),
      pairSystemCalls: LatencySummary(nanoseconds: systemCalls),
      plainLaunch: LatencySummary(nanoseconds: plain))
  }

  private func measure(_ body: () -> Void) -> UInt64 {
    let start = MonotonicClock.nanoseconds()
    body()
    return MonotonicClock.nanoseconds() - start
  }
}

/// An 8 KiB file (two slots) rewritten in place, with and without `fdatasync`: what the state
/// writes cannot beat.
private struct BareSyncFile {
  private let fd: Int32
  private let block = [UInt8](repeating: 0x20, count: 4096)

  init(path: String) throws {
    fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
    guard fd >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
    writeTwoSlots()
  }

  func writeAndSync() {
    _ = block.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) }
    _ = fdatasync(fd)
  }

  /// The launch pair's two writes without their work: one 4 KiB slot, then the other.
  func writeTwoSlots() {
    _ = block.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) }
    _ = block.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 4096) }
  }

  func close() { _ = Glibc.close(fd) }
}
