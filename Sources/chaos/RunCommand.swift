import ArgumentParser
import ChaosKit
import Foundation

/// `chaos run`: the main job.
struct RunCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "run",
    abstract: "Run chaos scenarios against real target processes.",
    discussion: """
      Each scenario gets a fresh state directory; its launches run in order, each in its own \
      process group under a watchdog. Exit status: 0 all passed, 1 some failed, 2 usage or \
      scenario errors. A scenario that needs a privilege this run lacks (root, CAP_SYS_ADMIN) is \
      skipped, naming it, and does not change the status unless --require-all is given (then it \
      exits 2). Core dumps are disabled for targets (RLIMIT_CORE=0).

      Examples:
        chaos run                                  # ./Scenarios
        chaos run Scenarios/counting --jobs 1
        chaos run Scenarios/ --filter protect --junit junit.xml \\
          --json results.json
        chaos run Scenarios/ --shard 2/4           # the second of four CI shards
        chaos run Scenarios/ --repeat 5 --seed 42
        chaos run Scenarios/ --html report.html    # a timeline per scenario
        chaos run Scenarios/ --trace traces        # task traces for Perfetto
        chaos run Scenarios/ --require-all         # CI: a skipped scenario fails the run
      """)

  @Argument(help: "Scenario files or folders (recursive). Default: ./Scenarios")
  var paths: [String] = []

  @Option(help: "Only scenarios whose path or name contains this text (case-insensitive).")
  var filter: String?

  @Option(parsing: .unconditional, help: "Scenarios run at once. Default: the number of cores.")
  var jobs: Int?

  @Option(name: .customLong("repeat"), parsing: .unconditional, help: "Run each scenario this many times.")
  var repeatCount = 1

  @Option(
    help: ArgumentHelp(
      "Run shard i of n (1 ≤ i ≤ n, e.g. 2/4): a deterministic split by scenario path.", valueName: "i/n"))
  var shard: Shard?

  @Option(parsing: .unconditional, help: "CHAOS_SEED for every launch, to reproduce probabilistic failpoints.")
  var seed: UInt64?

  @Option(help: "Run this program instead of each scenario's target.")
  var target: String?

  @Flag(help: "Keep the artifacts of passing scenarios too.")
  var keep = false

  @Option(help: "Where artifacts go (failing scenarios' stdout, stderr, events, state).")
  var artifacts = "chaos-artifacts"

  @Option(help: "Write JUnit XML here.")
  var junit: String?

  @Option(help: "Write machine-readable results (with per-launch latencies) here.")
  var json: String?

  @Option(
    help: ArgumentHelp(
      "Write a self-contained HTML report here: a summary, and per scenario a timeline of every launch process (phases, failpoints, crashes, supervisor actions, requests) with failing expectations marked and linked to their artifacts.",
      valueName: "file"))
  var html: String?

  @Option(
    help: ArgumentHelp(
      "Write one Trace Event Format file per scenario into this folder (open in Perfetto or chrome://tracing): every launch's tasks as slices on their threads, dependencies as flow arrows.",
      valueName: "dir"))
  var trace: String?

  @Flag(
    help:
      "Fail (exit 2) when a scenario is skipped for a privilege this run lacks (root, CAP_SYS_ADMIN): CI must run every scenario."
  )
  var requireAll = false

  func validate() throws {
    if let jobs, jobs < 1 { throw ValidationError("--jobs must be at least 1, not \(jobs)") }
    if repeatCount < 1 { throw ValidationError("--repeat must be at least 1, not \(repeatCount)") }
  }

  func run() throws {
    var limit = rlimit(rlim_cur: 0, rlim_max: 0)
    setrlimit(Int32(RLIMIT_CORE.rawValue), &limit)
    Interrupts.install()

    let scenarios: [Scenario]
    do {
      scenarios = try Selection.load(paths: paths, filter: filter, shard: shard)
    } catch {
      FileHandle.standardError.write(Data("error: \(error)\n".utf8))
      throw ExitCode(2)
    }
    if scenarios.isEmpty {
      FileHandle.standardError.write(Data("error: no scenarios selected\n".utf8))
      throw ExitCode(2)
    }
    var options = RunOptions()
    options.jobs = jobs ?? options.jobs
    options.repeatCount = repeatCount
    options.seed = seed
    options.targetOverride = target
    options.keepArtifacts = keep
    options.artifactsDirectory = URL(fileURLWithPath: artifacts).standardizedFileURL.path
    options.referenceTarget = Selection.referenceTarget()
    options.recordsTimeline = html != nil || trace != nil
    let started = Date()

    let color = isatty(1) == 1 && ProcessInfo.processInfo.environment["NO_COLOR"] == nil
    print("chaos run: \(scenarios.count) scenarios, \(options.jobs) jobs, artifacts in \(options.artifactsDirectory)")
    let results = SuiteRunner(options: options).run(scenarios) { result, done, total in
      print(SummaryReport.line(result, done: done, total: total, color: color))
    }
    // Interrupted: the signal's handler reports what it killed and exits 130; the scenarios it
    // cut short must not end the process first with another status.
    if ChildRegistry.shared.isCancelled { Interrupts.waitForTheHandler() }
    print(SummaryReport.table(results))
    try Reports.write(results, junit: junit, json: json)
    if let html {
      let file = URL(fileURLWithPath: html).standardizedFileURL
      let targets = target.map { [$0] } ?? Array(Set(scenarios.map(\.target))).sorted()
      let context = HTMLReport.Context(
        seconds: Date().timeIntervalSince(started), seed: seed, targets: targets,
        reportDirectory: file.deletingLastPathComponent().path,
        command: (["chaos"] + CommandLine.arguments.dropFirst()).joined(separator: " "))
      try Data(HTMLReport.render(results, context: context).utf8).write(to: file)
      print("HTML report: \(file.path)")
    }
    if let trace {
      let written = try Reports.writeTraces(results, directory: trace)
      print("traces: \(written) files in \(trace)")
    }
    let skipped = results.filter(\.isSkipped)
    if requireAll, !skipped.isEmpty {
      FileHandle.standardError.write(
        Data("error: --require-all: \(skipped.count) scenarios skipped for a privilege this run lacks\n".utf8))
      throw ExitCode(2)
    }
    if results.contains(where: { $0.status == .error && !$0.isSkipped }) { throw ExitCode(2) }
    if !results.allSatisfy({ $0.passed || $0.isSkipped }) { throw ExitCode(1) }
  }
}

/// Finding, loading and filtering scenarios.
enum Selection {
  static func load(paths: [String], filter: String?, shard: Shard?) throws -> [Scenario] {
    var files = try ScenarioDiscovery.files(in: paths.isEmpty ? ["Scenarios"] : paths)
    if let shard { files = ScenarioDiscovery.shard(files, index: shard.number, count: shard.count) }
    let scenarios = try files.map { path throws(ScenarioError) in try ScenarioLoader.load(path: path) }
    guard let filter, !filter.isEmpty else { return scenarios }
    return scenarios.filter {
      $0.path.range(of: filter, options: .caseInsensitive) != nil
        || $0.name.range(of: filter, options: .caseInsensitive) != nil
    }
  }

  /// `chaos-target` next to this `chaos` executable.
  static func referenceTarget() -> String? { sibling("chaos-target") }

  /// An executable built next to this `chaos` executable.
  static func sibling(_ name: String) -> String? {
    let candidate = ScenarioCase.executable(name)
    return FileManager.default.isExecutableFile(atPath: candidate) ? candidate : nil
  }
}

/// Writing the optional report files.
enum Reports {
  static func write(_ results: [ScenarioResult], junit: String?, json: String?) throws {
    if let junit { try Data(JUnitReport.render(results).utf8).write(to: URL(fileURLWithPath: junit)) }
    if let json {
      let encoder = JSONEncoder()
      encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
      try encoder.encode(results).write(to: URL(fileURLWithPath: json))
    }
    if let summary = ProcessInfo.processInfo.environment["GITHUB_STEP_SUMMARY"], !summary.isEmpty,
      let handle = FileHandle(forWritingAtPath: summary)
    {
      handle.seekToEndOfFile()
      handle.write(Data(SummaryReport.markdown(results).utf8))
      try? handle.close()
    }
  }
}

extension Reports {
  /// One trace file per scenario whose processes wrote task events; returns how many.
  static func writeTraces(_ results: [ScenarioResult], directory: String) throws -> Int {
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    var taken = Set<String>()
    var written = 0
    for result in results {
      guard let json = ScenarioTrace.json(result) else { continue }
      let name = ScenarioTrace.fileName(result, taken: &taken)
      try Data(json.utf8).write(to: URL(fileURLWithPath: directory).appendingPathComponent(name))
      written += 1
    }
    return written
  }
}

/// Ctrl-C and SIGTERM: kill every child process group, reap, exit 130.
enum Interrupts {
  nonisolated(unsafe) static var sources: [DispatchSourceSignal] = []

  static func install() {
    for signal in [SIGINT, SIGTERM] {
      Glibc.signal(signal, SIG_IGN)
      let source = DispatchSource.makeSignalSource(signal: signal, queue: .global())
      source.setEventHandler {
        let killed = ChildRegistry.shared.cancelAll()
        FileHandle.standardError.write(
          Data("\nchaos: interrupted by \(Signals.name(signal)); killed \(killed) process groups\n".utf8))
        exit(130)
      }
      source.resume()
      sources.append(source)
    }
  }

  /// Blocks until the interrupt handler ends the process (it exits 130).
  static func waitForTheHandler() -> Never {
    while true { sleep(1) }
  }
}
