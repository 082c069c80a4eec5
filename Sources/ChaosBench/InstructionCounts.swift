import ChaosKit
import Foundation

/// Instructions the launch path executes, counted by valgrind's callgrind: unlike times, the
/// counts hold still on a noisy machine, so a change shows as a number, not a distribution.
/// Counted in the bench helper's measured functions only (`--toggle-collect`), on a copy of it
/// without debug information (valgrind 3.19 cannot read the DWARF 5 a release build has).
public struct InstructionCounts: Codable, Sendable {
  /// `finishLaunching` after a crashed launch + `launchingFinished`, `.processCrash`, per pair.
  public var processCrashPair: Double
  /// The same pair, first in a fresh process with the default configuration.
  public var freshFirstLaunch: Double

  /// Why counts could not be made on this machine (valgrind or strip missing), or nil.
  public static func unavailable() -> String? {
    for tool in ["valgrind", "strip"] where ToolLocator.find(tool) == nil {
      return "\(tool) is not installed (apt-get install valgrind binutils): no instruction counts"
    }
    return nil
  }

  /// Counts with `helper` in `workDirectory`.
  public static func measure(helper: String, workDirectory: String, pairs: Int = 200) throws -> InstructionCounts {
    let copy = workDirectory + "/helper-nodebug"
    guard ToolLocator.run(ToolLocator.find("strip")!, ["-g", "-o", copy, helper]) != nil else {
      throw ScenarioError(path: helper, line: 0, column: 0, message: "strip -g failed")
    }
    let pathState = workDirectory + "/count-launch-path"
    let pair = try count(
      copy, ["--count-launch-path", String(pairs), pathState], collect: "*LaunchPathCountO12measuredPair*",
      log: workDirectory + "/callgrind-pair.log")
    let firstState = workDirectory + "/count-first-launch"
    _ = ToolLocator.run(copy, ["--bench-first-launch", firstState])  // leaves a crashed launch to count
    let first = try count(
      copy, ["--bench-first-launch", firstState, "finish"], collect: "*FirstLaunchBenchmarkO8measured*",
      log: workDirectory + "/callgrind-first.log")
    return InstructionCounts(processCrashPair: Double(pair) / Double(pairs), freshFirstLaunch: Double(first))
  }

  /// Instructions executed inside functions matching `collect`, or by the whole process when
  /// nil (valgrind's messages go to `log`).
  static func count(_ executable: String, _ arguments: [String], collect: String?, log: String) throws
    -> UInt64
  {
    _ = ToolLocator.run(
      ToolLocator.find("valgrind")!,
      ["--tool=callgrind", "--callgrind-out-file=/dev/null", "--log-file=\(log)"]
        + (collect.map { ["--toggle-collect=\($0)"] } ?? []) + [executable] + arguments)
    let messages = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
    // "==123== Collected : 4567" is callgrind's total of the collected events (Ir).
    guard let line = messages.split(separator: "\n").first(where: { $0.contains("Collected :") }),
      let number = line.split(separator: ":").last.flatMap({ UInt64($0.trimmingCharacters(in: .whitespaces)) }),
      number > 0
    else {
      throw ScenarioError(
        path: executable, line: 0, column: 0,
        message: "callgrind counted nothing in \(collect ?? "the process"):\n" + messages.suffix(600))
    }
    return number
  }
}
