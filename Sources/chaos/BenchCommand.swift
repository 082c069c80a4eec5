import ArgumentParser
import ChaosBench
import ChaosKit
import Foundation

/// `chaos bench`: measured costs on this machine, as tables, JSON and a chart.
struct BenchCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "bench",
    abstract: "Measure crash-handler latency, crash-to-reap time, harness throughput and protection cost.",
    discussion: """
      Build in release mode for meaningful numbers (this also builds the reference app):

        swift run -c release chaos bench
        swift run -c release chaos bench --only handler,reap --iterations 500 \\
          --json bench.json --chart bench.svg

      Sections: handler (fault → handler entry, entry → record written, first crash of a fresh \
      process each time; fatal and abort again without prefaulted unwind tables), reap (fault → \
      waitpid in the parent for our handler, the Swift runtime backtracer, no handler, a glibc \
      backtrace() handler and one that records nothing, interleaved), throughput (launches/s \
      through the harness beside direct spawn+reap), explore (chaos explore launches/s at jobs 1 \
      and 2), protection (finishLaunching and launchingFinished with their durable writes, beside \
      two bare pwrites, a pwrite + fdatasync and the pair's system calls alone; \
      crash capture's install with and without prefaulted unwind tables), scheduler (LaunchTasks \
      overhead per task), failpoints (cost of an unconfigured failpoint), probe (an inert \
      ChaosProbe's cost on launch: declare + attach when CHAOS_EVENTS is unset), stop (how long a \
      SIGTERM owner that appears during the launch has SIGTERM before the organizer adopts it, \
      idle and with every core busy).
      """)

  @Option(parsing: .unconditional, help: "Crashes per fault for the handler-latency section.")
  var iterations = 200

  @Option(
    parsing: .unconditional,
    help:
      "Crashes per fault and configuration for the crash-to-reap section (the Swift runtime's backtracer: at most 30)."
  )
  var reapIterations = 100

  @Option(
    parsing: .unconditional, help: "Launches per throughput measurement (in 10 rounds, harness and direct alternating)."
  )
  var launches = 300

  @Option(parsing: .unconditional, help: "Sequences per jobs setting in the explore section.")
  var exploreSequences = 40

  @Option(parsing: .unconditional, help: "Iterations of the protection-cost section.")
  var protectionIterations = 1000

  @Option(
    help:
      "Comma-separated sections to run (handler, reap, throughput, explore, protection, scheduler, failpoints, probe, whole-process, stop)."
  )
  var only: String?

  @Option(help: "Scratch directory (a real file system: fsync is measured).")
  var workDirectory = NSTemporaryDirectory()

  @Option(help: "Also write every result as JSON to this file.")
  var json: String?

  @Option(help: "Write an SVG chart of the latency distributions to this file.")
  var chart: String?

  func validate() throws {
    for (name, value) in [
      ("--iterations", iterations), ("--reap-iterations", reapIterations), ("--launches", launches),
      ("--explore-sequences", exploreSequences), ("--protection-iterations", protectionIterations),
    ] where value < 1 {
      throw ValidationError("\(name) must be at least 1, not \(value)")
    }
  }

  func run() throws {
    let sections = Set(
      (only ?? "handler,reap,throughput,explore,protection,scheduler,failpoints,probe,whole-process,stop").split(
        separator: ","
      ).map(
        String.init))
    guard let target = Selection.referenceTarget() else {
      throw ValidationError("chaos-target is not next to chaos; build it: swift build -c release --product chaos")
    }
    guard let helper = Selection.sibling("chaos-bench-helper") else {
      throw ValidationError("chaos-bench-helper is not next to chaos; build it: swift build -c release --product chaos")
    }
    let work = workDirectory + "/chaos-bench-\(getpid())"
    try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: work) }
    var report = BenchReport()
    let say: (String) -> Void = { FileHandle.standardError.write(Data("… \($0)\n".utf8)) }

    if sections.contains("handler") {
      report.handler = try HandlerLatencyBenchmark(target: target, iterations: iterations, workDirectory: work).run(
        progress: say)
      print(BenchTables.handler(report.handler!))
      report.warmHandler = try HelperBench.json(helper, ["--bench-warm-handler"])
      print(BenchTables.warmHandler(report.warmHandler!))
    }
    if sections.contains("reap") {
      report.reap = try CrashToReapBenchmark(target: helper, iterations: reapIterations, workDirectory: work).run(
        progress: say)
      print(BenchTables.reap(report.reap!))
    }
    if sections.contains("throughput") {
      report.throughput = try ThroughputBenchmark(target: target, launches: launches, workDirectory: work).run(
        progress: say)
      print(BenchTables.throughput(report.throughput!))
    }
    if sections.contains("explore") {
      report.explore = try ExploreThroughputBenchmark(target: target, sequences: exploreSequences, workDirectory: work)
        .run(progress: say)
      print(BenchTables.explore(report.explore!))
    }
    if sections.contains("protection") {
      say("protection cost")
      report.protection = try ProtectionCostBenchmark(iterations: protectionIterations, workDirectory: work).run()
      print(BenchTables.protection(report.protection!, iterations: protectionIterations))
      say("first launch of a fresh process")
      report.firstLaunch = try HelperBench.firstLaunch(helper, runs: 40, workDirectory: work)
      print(BenchTables.firstLaunch(report.firstLaunch!))
      say("instruction counts (callgrind)")
      let unavailable = InstructionCounts.unavailable()
      if unavailable == nil { report.instructions = try InstructionCounts.measure(helper: helper, workDirectory: work) }
      print(BenchTables.instructions(report.instructions, unavailable: unavailable))
      say("crash capture install")
      report.install = try HelperBench.installCost(helper, runs: 40)
      print(BenchTables.install(report.install!))
    }
    if sections.contains("scheduler") {
      say("scheduler overhead")
      report.scheduler = try HelperBench.json(helper, ["--bench-scheduler", "1000", "3", "50"])
      print(BenchTables.scheduler(report.scheduler!))
    }
    if sections.contains("failpoints") {
      say("failpoint cost")
      report.failpoints = try HelperBench.json(helper, ["--bench-failpoints"])
      print(BenchTables.failpoints(report.failpoints!))
    }
    if sections.contains("probe") {
      say("inert ChaosProbe")
      report.inertProbe = try HelperBench.inertProbe(helper, runs: 40)
      print(BenchTables.inertProbe(report.inertProbe!))
    }
    if sections.contains("whole-process") {
      guard let package = WholeProcessBenchmark.findPackage(from: "/proc/self/exe") else {
        throw ValidationError("whole-process: Examples/Footprint not found above chaos or the current directory")
      }
      report.wholeProcess = try WholeProcessBenchmark(package: package, pairs: 100, workDirectory: work).run(
        progress: say)
      print(BenchTables.wholeProcess(report.wholeProcess!))
    }
    if sections.contains("stop") {
      say("stop adoption window")
      report.stopWindow = try HelperBench.stopWindow(helper, runs: 100, workDirectory: work)
      print(BenchTables.stopWindow(report.stopWindow!))
    }
    if let json {
      let encoder = JSONEncoder()
      encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
      try encoder.encode(report).write(to: URL(fileURLWithPath: json))
    }
    if let chart {
      var series: [(String, [Double])] = []
      for row in report.handler ?? [] { series.append(("handler: \(row.fault)", row.handlerSamples)) }
      for cell in report.reap ?? [] where cell.fault == "fatal" || cell.fault == "stackoverflow" {
        series.append(("reap \(cell.fault): \(cell.configuration)", cell.samples))
      }
      try SVGChart.render(title: "chaos bench: latency distributions (µs, log scale)", series: series)
        .write(toFile: chart, atomically: true, encoding: .utf8)
    }
  }
}

/// The bench helper's micro-benchmarks (they measure libraries ChaosKit does not link).
enum HelperBench {
  /// `runs` fresh processes, each timing an inert ChaosProbe's first and repeated calls.
  static func inertProbe(_ helper: String, runs: Int) throws -> InertProbeCost {
    var first: [UInt64] = []
    var repeated: [UInt64] = []
    var anyActive = false
    for _ in 0..<runs {
      let result = try json(helper, ["--bench-probe"])
      guard case .number(let firstCall)? = result["first_ns"], case .number(let median)? = result["repeated_p50_ns"]
      else { throw ValidationError("\(helper) --bench-probe printed no timings: \(result)") }
      first.append(UInt64(firstCall))
      repeated.append(UInt64(median))
      if result["active"] != .bool(false) || result["signal_handler_installed"] != .bool(false) { anyActive = true }
    }
    return InertProbeCost(firstCall: first, repeated: repeated, anyActive: anyActive)
  }

  /// `runs` pairs of fresh processes: one dies unfinished (a crash, as the next sees it), the
  /// next times its first `finishLaunching` (which counts it) and `launchingFinished`.
  static func firstLaunch(_ helper: String, runs: Int, workDirectory: String) throws -> FirstLaunchCost {
    let directory = workDirectory + "/first-launch-state"
    var finishLaunching: [UInt64] = []
    var launchingFinished: [UInt64] = []
    var pair: [UInt64] = []
    for _ in 0..<runs {
      _ = try json(helper, ["--bench-first-launch", directory])  // exits unfinished: counted next
      let result = try json(helper, ["--bench-first-launch", directory, "finish"])
      guard case .number(let launched)? = result["finish_launching_ns"],
        case .number(let finished)? = result["launching_finished_ns"], result["count"] == .number(1)
      else { throw ValidationError("\(helper) --bench-first-launch printed no timings: \(result)") }
      finishLaunching.append(UInt64(launched))
      launchingFinished.append(UInt64(finished))
      pair.append(UInt64(launched + finished))
    }
    return FirstLaunchCost(
      finishLaunchingAfterCrash: LatencySummary(nanoseconds: finishLaunching),
      launchingFinished: LatencySummary(nanoseconds: launchingFinished), together: LatencySummary(nanoseconds: pair))
  }

  /// `runs` fresh processes per setting, alternating, each timing its first install.
  static func installCost(_ target: String, runs: Int) throws -> CrashCaptureInstallCost {
    var on: [UInt64] = []
    var off: [UInt64] = []
    for _ in 0..<runs {
      for setting in ["on", "off"] {
        let result = try json(target, ["--bench-install", setting])
        guard case .number(let nanoseconds)? = result["install_ns"], case .bool(true)? = result["installed"] else {
          throw ValidationError("\(target) --bench-install \(setting): crash capture did not install: \(result)")
        }
        if setting == "on" { on.append(UInt64(nanoseconds)) } else { off.append(UInt64(nanoseconds)) }
      }
    }
    return CrashCaptureInstallCost(prefaulted: on, notPrefaulted: off)
  }

  /// Runs `target` with `arguments` (60 s at most) and decodes the one JSON object it prints.
  /// Spawned by the harness's own launcher, not Foundation's `Process`, whose threads' work
  /// ran beside the fresh process being measured.
  static func json(_ target: String, _ arguments: [String]) throws -> [String: JSONValue] {
    let output = NSTemporaryDirectory() + "/chaos-bench-\(getpid())-helper.json"
    defer { unlink(output) }
    var launcher = ProcessLauncher(
      executable: target, environment: ProcessInfo.processInfo.environment, stdoutPath: output,
      stderrPath: "/dev/null")
    launcher.arguments = arguments
    _ = ProcessLauncher.wait(try launcher.spawn(), timeout: 60)
    let data = FileManager.default.contents(atPath: output) ?? Data()
    guard case .object(let object) = try JSONDecoder().decode(JSONValue.self, from: data) else {
      throw ValidationError("\(target) \(arguments.joined(separator: " ")) printed no JSON object")
    }
    return object
  }
}
