import ArgumentParser
import ChaosKit
import Foundation

/// `chaos bench`: measured costs, printed as a table and optionally as JSON.
struct BenchCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "bench",
    abstract: "Measure the cost of launch protection on this machine.",
    discussion: """
      Build in release mode for meaningful numbers:

        swift run -c release chaos bench
        swift run -c release chaos bench --iterations 5000 --json bench.json
      """)

  @Option(help: "Launch pairs for the protection-cost benchmark.")
  var iterations = 1000

  @Option(help: "Directory for the benchmark's state files (a real file system; fsync is measured).")
  var workDirectory = NSTemporaryDirectory()

  @Option(help: "Also write the results as JSON to this file.")
  var json: String?

  func run() throws {
    let report = try ProtectionCostBenchmark(iterations: iterations, workDirectory: workDirectory).run()
    let rows: [(String, LatencySummary)] = [
      ("finishLaunching after a crash", report.finishLaunchingAfterCrash),
      ("finishLaunching after a clean launch", report.finishLaunchingAfterCleanLaunch),
      ("launchingFinished", report.launchingFinished),
      ("plain launch (no protection)", report.plainLaunch),
    ]
    print("Launch cost of protection (\(iterations) iterations, µs)")
    print(BenchTable.render(rows))
    if let json {
      let encoder = JSONEncoder()
      encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
      try encoder.encode(report).write(to: URL(fileURLWithPath: json))
    }
  }
}
