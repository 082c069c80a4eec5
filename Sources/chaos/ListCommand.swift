import ArgumentParser
import ChaosKit
import Foundation

/// `chaos list`: what `chaos run` would run.
struct ListCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "list", abstract: "List scenarios with their launch counts and the rule each proves.",
    discussion: "Example:\n  chaos list Scenarios/ --filter storage")

  @Argument(help: "Scenario files or folders. Default: ./Scenarios")
  var paths: [String] = []

  @Option(help: "Only scenarios whose path or name contains this text.")
  var filter: String?

  func run() throws {
    let scenarios: [Scenario]
    do {
      scenarios = try Selection.load(paths: paths, filter: filter, shard: nil)
    } catch {
      FileHandle.standardError.write(Data("error: \(error)\n".utf8))
      throw ExitCode(2)
    }
    for scenario in scenarios {
      print("\(scenario.path)  [\(scenario.launches.count) launches]  \(scenario.name)")
      if let description = scenario.description { print("    \(description)") }
    }
  }
}

/// `chaos validate`: parse and check against the target, run no launch.
struct ValidateCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "validate", abstract: "Check scenario files without running a launch.",
    discussion: """
      Checks the YAML, every key and value, the grammar of every `failpoints:` value and — when \
      the target can list its failpoints (CHAOS_LIST_FAILPOINTS=1, see Docs/Protocol.md) — \
      every failpoint name against the target. Prints file:line:column: message for every \
      invalid file; exit 2 if any. A `chaos explore --workload` file among them (a mapping with \
      `requests:` and neither `name:` nor `launches:`) is checked as a workload, not as a scenario.

      Examples:
        chaos validate Scenarios/
        chaos validate Scenarios/ --target .build/debug/mydaemon
      """)

  @Argument(help: "Scenario files or folders. Default: ./Scenarios")
  var paths: [String] = []

  @Option(help: "Check the names against this program instead of each scenario's target.")
  var target: String?

  func run() throws {
    let files: [String]
    let workloads: [String]
    do {
      files = try ScenarioDiscovery.files(in: paths.isEmpty ? ["Scenarios"] : paths)
      workloads = try ScenarioDiscovery.workloads(in: paths.isEmpty ? ["Scenarios"] : paths)
    } catch {
      FileHandle.standardError.write(Data("error: \(error)\n".utf8))
      throw ExitCode(2)
    }
    var options = RunOptions()
    options.targetOverride = target
    options.referenceTarget = Selection.referenceTarget()
    let runner = ScenarioRunner(options: options)
    var invalid = 0
    for file in files {
      do {
        try runner.preflight(try ScenarioLoader.load(path: file))
      } catch {
        invalid += 1
        FileHandle.standardError.write(Data("\(error)\n".utf8))
      }
    }
    // A folder of workload files only: no "0 of 0 scenario files valid" before their line.
    if !files.isEmpty || workloads.isEmpty { print("\(files.count - invalid) of \(files.count) scenario files valid") }
    // Workload files (`chaos explore --workload`) kept beside the scenarios: checked as workloads.
    var invalidWorkloads = 0
    for file in workloads {
      do {
        _ = try WorkloadLoader.load(path: file)
      } catch {
        invalidWorkloads += 1
        FileHandle.standardError.write(Data("\(error)\n".utf8))
      }
    }
    if !workloads.isEmpty {
      print("\(workloads.count - invalidWorkloads) of \(workloads.count) workload files valid")
    }
    if invalid + invalidWorkloads > 0 { throw ExitCode(2) }
  }
}
