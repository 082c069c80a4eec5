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
      `chaos run` on it fails the same way. Exit status: 0 nothing diverged, 1 a failure was \
      found (and written), 2 usage errors.

      Examples:
        chaos explore --seed 1 --time 60s
        chaos explore --seed 1 --sequences 20 --html explore.html
        chaos explore --target .build/debug/mydaemon \\
          --env 'MYDAEMON_DATA=${CHAOS_STATE_DIR}/data' --sequences 200
      """)

  @Option(help: "The target (default: the reference app next to chaos). It must list its failpoints.")
  var target: String?

  @Option(help: "JSON merged over each generated CHAOS_APP.")
  var app: String?

  @Option(parsing: .unconditional, help: "The seed; the same seed generates the same sequences.")
  var seed: UInt64 = 1

  @Option(help: "Explore for this long (e.g. 60s, 5m). Default 60s unless --sequences is given.")
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

  func validate() throws {
    if let jobs, jobs < 1 { throw ValidationError("--jobs must be at least 1, not \(jobs)") }
    if let sequences, sequences < 1 { throw ValidationError("--sequences must be at least 1, not \(sequences)") }
    if let time, Self.seconds(time) == nil { throw ValidationError("--time takes a duration like 60s, 500ms or 5m") }
    if let bad = environment.first(where: { !$0.contains("=") || $0.hasPrefix("=") }) {
      throw ValidationError("--env takes KEY=VALUE, not '\(bad)'")
    }
    if let app, (try? JSONDecoder().decode(JSONValue.self, from: Data(app.utf8)))?.isObject != true {
      throw ValidationError("--app must be a JSON object, e.g. '{\"threshold\": 3}'")
    }
  }

  static func seconds(_ text: String) -> Double? {
    for (suffix, scale) in [("ms", 0.001), ("s", 1.0), ("m", 60.0), ("h", 3600.0)] where text.hasSuffix(suffix) {
      if let value = Double(text.dropLast(suffix.count)), value > 0 { return value * scale }
    }
    return Double(text).flatMap { $0 > 0 ? $0 : nil }
  }

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
    let live = isatty(1) == 1 && ProcessInfo.processInfo.environment["CI"] == nil
    print("chaos explore: \(program), seed \(seed), \(options.jobs) jobs")
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
    if report.failure != nil { throw ExitCode(1) }
  }
}

/// The end-of-run text: totals, the coverage table, the failure.
enum ExploreReportText {
  static func render(_ report: Explorer.Report) -> String {
    var lines = [
      String(
        format: "%d sequences, %d launches in %.1f s (%.1f launches/s)", report.sequences, report.launches,
        report.seconds, report.seconds > 0 ? Double(report.launches) / report.seconds : 0)
    ]
    let kinds = FaultKind.allCases.map(\.rawValue) + ["sigterm"]
    let width = max(18, (report.declaredFailpoints.map(\.count).max() ?? 0) + 2)
    lines.append("")
    lines.append("Coverage: how often each fault fired at each failpoint")
    lines.append(
      "failpoint".padding(toLength: width, withPad: " ", startingAt: 0)
        + kinds.map { String($0.prefix(6)).padding(toLength: 7, withPad: " ", startingAt: 0) }.joined())
    var missing = 0
    var possible = 0
    for point in report.declaredFailpoints {
      let row = report.coverage[point] ?? [:]
      let cells = kinds.map { kind -> String in
        // return(errno) only fails tasks: elsewhere it is not a fault, and is never drawn.
        if kind == FaultKind.ioError.rawValue && !point.hasPrefix("task.") { return "-      " }
        possible += 1
        let count = row[kind] ?? 0
        if count == 0 { missing += 1 }
        return (count == 0 ? "." : String(count)).padding(toLength: 7, withPad: " ", startingAt: 0)
      }
      lines.append(point.padding(toLength: width, withPad: " ", startingAt: 0) + cells.joined())
    }
    let pointsReached = report.declaredFailpoints.filter { !(report.coverage[$0] ?? [:]).isEmpty }.count
    let kindsReached = kinds.filter { kind in report.coverage.values.contains { ($0[kind] ?? 0) > 0 } }.count
    lines.append(
      "failpoints reached: \(pointsReached) of \(report.declaredFailpoints.count); fault kinds reached: \(kindsReached) of \(kinds.count); cells never reached: \(missing) of \(possible)"
    )
    lines.append(
      "protect mode: \(report.protectLaunches) launches; levels reached: \(report.levelsReached.sorted().map(String.init).joined(separator: ", ")) \(report.customPolicy ? "(a custom policy: one more level each time a repair dies)" : "(configured up to \(report.levelsConfigured.max() ?? 1))")"
    )
    lines.append(
      "launches of several processes on one state directory: \(report.sharedLaunches); faults on a failpoint's second pass: \(report.secondPassFaults)"
    )
    lines.append("")
    if let failure = report.failure {
      lines.append("DIVERGENCE after \(String(format: "%.1f", failure.secondsToFind)) s: \(failure.firstDifference)")
      lines.append(
        "shrunk from \(failure.originalLaunches) to \(failure.shrunkLaunches) launches in \(String(format: "%.1f", failure.secondsToShrink)) s\(failure.confirmed ? ", confirmed by re-running the written file" : " (NOT confirmed on re-run: flaky?)")"
      )
      lines.append("written: \(failure.path)   (chaos run \(failure.path))")
      lines.append("explore: 0 passed, 1 failed")
    } else {
      lines.append("explore: \(report.sequences) passed, 0 failed")
    }
    return lines.joined(separator: "\n")
  }
}
