import ChaosKit
import Foundation

/// A fault the benchmarks inject, as a failpoint on the reference app's launching thread.
public struct BenchFault: Sendable {
  /// Short name for tables.
  public var name: String
  /// `CHAOS_FAILPOINTS`.
  public var failpoints: String
  /// Extra `CHAOS_APP` fields, e.g. `"prefault": false`.
  public var app = ""

  /// The faults of `chaos bench`: segv, fatal and abort in the last main-thread task (`ui`,
  /// once the workers are idle), stack overflow on the main thread, segv on a background thread.
  public static let standard = [
    BenchFault(name: "segv", failpoints: "task.ui=segv"),
    BenchFault(name: "fatal", failpoints: "task.ui=fatal"),
    BenchFault(name: "abort", failpoints: "task.ui=abort"),
    BenchFault(name: "stackoverflow", failpoints: "task.config=stackoverflow"),
    BenchFault(name: "thread segv", failpoints: "task.config=thread(segv)"),
  ]

  /// The faults whose first lookups land in the Swift runtime and libc, with the unwind
  /// tables left unmapped at install: what `prefaultUnwindTables` saves.
  public static let withoutPrefault = [
    BenchFault(name: "fatal, no prefault", failpoints: "task.ui=fatal", app: ", \"prefault\": false"),
    BenchFault(name: "abort, no prefault", failpoints: "task.ui=abort", app: ", \"prefault\": false"),
  ]
}

/// Handler latency per fault: fault → handler entry (delivery) and entry → record written,
/// each crash the first of a fresh process.
public struct HandlerLatencyBenchmark: Sendable {
  /// The reference app.
  public var target: String
  /// Crashes per fault.
  public var iterations: Int
  /// Scratch space.
  public var workDirectory: String

  /// Creates the benchmark.
  public init(target: String, iterations: Int, workDirectory: String) {
    self.target = target
    self.iterations = iterations
    self.workDirectory = workDirectory
  }

  /// One fault's results.
  public struct Row: Codable, Sendable {
    public var fault: String
    public var delivery: LatencySummary
    public var handler: LatencySummary
    /// Crashes that left no usable record.
    public var missing: Int
    /// Raw handler samples (µs) for the chart.
    public var handlerSamples: [Double]
  }

  /// Runs every fault `iterations` times.
  public func run(progress: (String) -> Void = { _ in }) throws -> [Row] {
    var rows: [Row] = []
    for fault in BenchFault.standard + BenchFault.withoutPrefault {
      progress("handler latency: \(fault.name)")
      let slug = fault.name.replacingOccurrences(of: ",", with: "").replacingOccurrences(of: " ", with: "-")
      let directory = workDirectory + "/handler-\(slug)"
      try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
      let process = BenchProcess(target: target)
      var delivery: [UInt64] = []
      var handler: [UInt64] = []
      var missing = 0
      for _ in 0..<iterations {
        let run = try process.run(
          failpoints: fault.failpoints, app: "{\"threshold\": 1000000000\(fault.app)}",
          stateDirectory: directory + "/state",
          events: directory + "/events.ndjson")
        guard let crashEvent = run.events.last(where: { $0.name == "crash" }),
          let record = try? CrashRecord(event: crashEvent),
          let fired = run.events.last(where: { $0.name == "failpoint" })
        else {
          missing += 1
          continue
        }
        delivery.append(record.entered &- fired.time)
        handler.append(record.done &- record.entered)
      }
      rows.append(
        Row(
          fault: fault.name, delivery: LatencySummary(nanoseconds: delivery),
          handler: LatencySummary(nanoseconds: handler),
          missing: missing, handlerSamples: handler.map { Double($0) / 1000 }))
    }
    return rows
  }
}

/// Fault → `waitpid` returning in the parent, for our handler and the alternatives,
/// interleaved in one run so machine noise hits them all alike.
public struct CrashToReapBenchmark: Sendable {
  /// A crash-handling setup of the target.
  public struct Configuration: Sendable {
    public var name: String
    public var app: String
    public var swiftBacktrace: String
    /// At most this many crashes per fault, whatever the benchmark's `iterations`: the Swift
    /// runtime's backtracer takes ~0.1 s a crash and is ~100× the others, so 30 place it well
    /// while the cells compared at 10 % get the samples their p50 needs. Nil: every iteration.
    public var maximumIterations: Int? = nil
  }

  /// Ours; the Swift runtime's backtracer alone; nothing; a glibc backtrace() handler; a
  /// handler that records nothing (what catching the signal costs before any recording) — all
  /// on the bench helper's crash-to-reap app, so the code up to the fault is the same.
  public static let configurations = [
    Configuration(name: "ours", app: "{\"handler\": \"ours\"}", swiftBacktrace: "enable=no"),
    Configuration(
      name: "swift runtime", app: "{\"handler\": \"none\"}", swiftBacktrace: "enable=yes,interactive=no",
      maximumIterations: 30),
    Configuration(name: "no handler", app: "{\"handler\": \"none\"}", swiftBacktrace: "enable=no"),
    Configuration(name: "glibc backtrace", app: "{\"handler\": \"glibc\"}", swiftBacktrace: "enable=no"),
    Configuration(name: "minimal handler", app: "{\"handler\": \"minimal\"}", swiftBacktrace: "enable=no"),
  ]

  public var target: String
  public var iterations: Int
  public var workDirectory: String

  /// Creates the benchmark.
  public init(target: String, iterations: Int, workDirectory: String) {
    self.target = target
    self.iterations = iterations
    self.workDirectory = workDirectory
  }

  /// One fault × configuration.
  public struct Cell: Codable, Sendable {
    public var fault: String
    public var configuration: String
    public var reap: LatencySummary
    public var samples: [Double]
  }

  /// The `number`-th of the orderings of `items` (cyclically): consecutive numbers run through
  /// all n! of them, in which each item directly follows each other one equally often.
  static func ordering<T>(_ items: [T], number: Int) -> [T] {
    var rest = items
    var code = number
    var ordered: [T] = []
    while !rest.isEmpty {
      ordered.append(rest.remove(at: code % rest.count))
      code /= rest.count + 1
    }
    return ordered
  }

  /// Runs all cells, interleaved.
  public func run(progress: (String) -> Void = { _ in }) throws -> [Cell] {
    var samples: [String: [UInt64]] = [:]
    for fault in BenchFault.standard {
      progress("crash-to-reap: \(fault.name)")
      for iteration in 0..<iterations {
        // Each iteration runs the setups in the next of their orders, so every setup follows
        // every other alike: a crash right after the Swift runtime's backtracer (whose helper
        // may still be exiting on the other core) is slower, which a fixed order charged to
        // the setup after it (no handler, whose p50 came out 10–15 % slow).
        let running = Self.configurations.filter { iteration < $0.maximumIterations ?? iterations }
        for configuration in Self.ordering(running, number: iteration) {
          let directory = workDirectory + "/reap"
          try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
          let run = try BenchProcess(target: target).run(
            failpoints: fault.failpoints, app: configuration.app, swiftBacktrace: configuration.swiftBacktrace,
            stateDirectory: directory + "/state-\(configuration.name.replacingOccurrences(of: " ", with: "-"))",
            events: directory + "/events.ndjson")
          guard let fired = run.events.last(where: { $0.name == "failpoint" }) else { continue }
          samples["\(fault.name)|\(configuration.name)", default: []].append(run.reapedAt &- fired.time)
        }
      }
    }
    return BenchFault.standard.flatMap { fault in
      Self.configurations.map { configuration in
        let values = samples["\(fault.name)|\(configuration.name)"] ?? []
        return Cell(
          fault: fault.name, configuration: configuration.name, reap: LatencySummary(nanoseconds: values),
          samples: values.map { Double($0) / 1000 })
      }
    }
  }
}
