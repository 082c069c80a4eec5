import ArgumentParser
import ChaosKit
import Foundation

/// `chaos explore`: generated crash loops checked against a model of the protection contract.
struct ExploreCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "explore",
    abstract: "Generate crash loops, check them against the protection contract, shrink a failure to a scenario.",
    discussion: """
      Each sequence is a generated app configuration (threshold or escalation levels, whether \
      the repair finishes) and 5–14 launches: faults at every failpoint the target lists × every \
      fault kind, SIGTERM during launch, reboots, new binaries, corrupt state, a reused pid, I/O \
      errors. A model of the contract predicts each launch; the sequence runs as a scenario. On \
      the first divergence the sequence is shrunk and written to --out as a scenario file; \
      `chaos run` on it fails the same way. A launch whose injected failpoint did not fire is \
      judged as a launch without that fault ("not reached"). Exit status: 0 nothing diverged, 1 \
      a divergence that any re-run reproduced (a bug, written; reproduced in only k of n re-runs \
      it is written with repeat: so that it fails reliably), 2 usage or scenario errors, 3 a \
      flaky divergence (no re-run reproduced it; 1 with --strict-flaky).

      Examples:
        chaos explore --seed 1 --time 60s
        chaos explore --seed 1 --sequences 20 --html explore.html
        chaos explore --target .build/debug/myserver --workload workload.yaml --sequences 200
        chaos explore --seed 1 --time 10m --shard 2/4 --store explore-store
        chaos explore merge shard-1/ shard-2/ shard-3/ shard-4/ --into explore-store
      """,
    subcommands: [ExploreMergeCommand.self])

  @Option(help: "The target (default: the reference app next to chaos). It must list its failpoints.")
  var target: String?

  @Option(help: "JSON merged over each generated CHAOS_APP.")
  var app: String?

  @Option(parsing: .unconditional, help: "The random seed; the same seed generates the same sequences.")
  var seed: UInt64 = 1

  @Option(
    help:
      "Explore for this long (e.g. 60s, 5m), a hard limit: the sequences under way then are cut (their processes killed) and reported as cut; a divergence found before is still shrunk after. Default 60s unless --sequences is given."
  )
  var time: String?

  @Option(parsing: .unconditional, help: "Explore this many sequences.")
  var sequences: Int?

  @Option(parsing: .unconditional, help: "Sequences run at once. Default: the number of cores.")
  var jobs: Int?

  @Option(help: "Where a shrunk failing scenario is written.")
  var out = "chaos-explore"

  @Option(
    name: .customLong("env"),
    help: ArgumentHelp(
      "KEY=VALUE for every launch (repeatable); ${CHAOS_STATE_DIR} is the run's state directory.",
      valueName: "KEY=VALUE"))
  var environment: [String] = []

  @Option(help: "Write the report (coverage, failure) as JSON here.")
  var json: String?

  @Option(
    help: ArgumentHelp(
      "Write a self-contained HTML report here: every sequence's verdict and, for a divergence, the shrinking steps, the minimal scenario, the prediction beside what happened, and its run's timeline.",
      valueName: "file"))
  var html: String?

  @Option(help: "A YAML file whose requests: (scenario format) every daemon launch makes once it finished launching.")
  var workload: String?

  @Flag(help: "Fail (exit 1) on a flaky divergence too, instead of exit 3.")
  var strictFlaky = false

  @Option(help: "A failure store: replayed before exploring, added to when a divergence is confirmed.")
  var store: String?

  @Option(
    help: ArgumentHelp(
      "Explore shard i of n (1 ≤ i ≤ n; sequence k goes to shard k mod n + 1). Default: Bazel's TEST_SHARD_INDEX/TEST_TOTAL_SHARDS, then JOB_COMPLETION_INDEX with --shards.",
      valueName: "i/n"))
  var shard: Shard?

  @Option(parsing: .unconditional, help: "The total shards, with a Kubernetes Indexed Job's JOB_COMPLETION_INDEX.")
  var shards: Int?

  func validate() throws {
    if let jobs, jobs < 1 { throw ValidationError("--jobs must be at least 1, not \(jobs)") }
    if let sequences, sequences < 1 { throw ValidationError("--sequences must be at least 1, not \(sequences)") }
    if let time, Self.seconds(time) == nil {
      throw ValidationError("--time takes a duration more than 0 like 60s, 500ms, 5m or 1h; not '\(time)'")
    }
    if let bad = environment.first(where: { !$0.contains("=") || $0.hasPrefix("=") }) {
      throw ValidationError("--env takes KEY=VALUE, not '\(bad)'")
    }
    if let shards, shards < 1 { throw ValidationError("--shards must be at least 1, not \(shards)") }
    do {
      _ = try ExploreShard.resolve(flag: shard, shards: shards, environment: ProcessInfo.processInfo.environment)
    } catch {
      throw ValidationError(error.description)
    }
    if let app, (try? JSONDecoder().decode(JSONValue.self, from: Data(app.utf8)))?.isObject != true {
      throw ValidationError("--app must be a JSON object, e.g. '{\"threshold\": 3}'")
    }
  }

  /// `--time` in seconds: a duration (`DurationText`) more than 0.
  static func seconds(_ text: String) -> Double? { DurationText.seconds(text).flatMap { $0 > 0 ? $0 : nil } }

  func run() throws {
    var limit = rlimit(rlim_cur: 0, rlim_max: 0)
    setrlimit(Int32(RLIMIT_CORE.rawValue), &limit)
    Interrupts.install()
    guard let program = target.map({ URL(fileURLWithPath: $0).standardizedFileURL.path }) ?? Selection.referenceTarget()
    else { throw ValidationError("no --target and chaos-target is not next to chaos") }
    guard FileManager.default.isExecutableFile(atPath: program) else {
      throw ValidationError("target '\(program)' is not an executable file")
    }
    var options = Explorer.Options(target: program)
    options.app = app.flatMap { try? JSONDecoder().decode(JSONValue.self, from: Data($0.utf8)) }
    options.seed = seed
    for pair in environment {
      let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
      options.environment[String(parts[0])] = parts.count > 1 ? String(parts[1]) : ""
    }
    options.sequences = sequences
    options.seconds = time.flatMap(Self.seconds) ?? (sequences == nil ? 60 : nil)
    options.jobs = jobs ?? options.jobs
    options.outDirectory = URL(fileURLWithPath: out).standardizedFileURL.path
    options.recordsTimeline = html != nil
    options.store = store.map { URL(fileURLWithPath: $0).standardizedFileURL.path }
    let environment = ProcessInfo.processInfo.environment
    if let shard = try? ExploreShard.resolve(flag: shard, shards: shards, environment: environment) {
      options.shardIndex = shard.index
      options.shardCount = shard.count
      // Bazel asks a sharded test to say it shards.
      if shard.source == "TEST_SHARD_INDEX", let status = environment["TEST_SHARD_STATUS_FILE"] {
        _ = FileManager.default.createFile(atPath: status, contents: nil)
      }
    }
    if let workload {
      do {
        options.workload = try WorkloadLoader.load(path: workload)
        options.workloadDirectory = URL(fileURLWithPath: workload).standardizedFileURL.deletingLastPathComponent().path
      } catch {
        FileHandle.standardError.write(Data("error: \(error)\n".utf8))
        throw ExitCode(2)
      }
    }
    let live = isatty(1) == 1 && ProcessInfo.processInfo.environment["CI"] == nil
    let shardText = options.shardCount > 1 ? ", shard \(options.shardIndex + 1)/\(options.shardCount)" : ""
    print("chaos explore: \(program), seed \(seed)\(shardText), \(options.jobs) jobs")
    let report: Explorer.Report
    do {
      report = try Explorer(options: options).run { sequences, launches, seconds, divergences in
        guard live else { return }
        let rate = seconds > 0 ? Double(launches) / seconds : 0
        let line = String(
          format: "\r  %d sequences, %d launches, %.1f launches/s, %d divergences", sequences, launches, rate,
          divergences)
        FileHandle.standardOutput.write(Data(line.utf8))
      }
    } catch {
      FileHandle.standardError.write(Data("error: \(error)\n".utf8))
      throw ExitCode(2)
    }
    if live { print("") }
    print(ExploreReportText.render(report))
    if RunProfile.enabled { print(ExploreReportText.profile(RunProfile.take(), jobs: options.jobs)) }
    if let json {
      let encoder = JSONEncoder()
      encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
      try encoder.encode(report).write(to: URL(fileURLWithPath: json))
    }
    if let html {
      let command = (["chaos"] + CommandLine.arguments.dropFirst()).joined(separator: " ")
      let page = ExploreHTMLReport.render(report, target: program, command: command)
      try Data(page.utf8).write(to: URL(fileURLWithPath: html))
      print("HTML report: \(URL(fileURLWithPath: html).standardizedFileURL.path)")
    }
    guard let failure = report.failure else { return }
    let verdict = Verdict(reproduced: failure.rerunsFailedTheSameWay, reruns: failure.reruns.count)
    throw ExitCode(verdict.exitStatus(strictFlaky: strictFlaky))
  }
}
