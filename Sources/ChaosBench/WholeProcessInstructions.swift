import ChaosKit
import Foundation

// The whole process's instructions (callgrind), start to exit: unlike its time, the count holds
// still on a loaded machine, and it includes what a fresh process pays once (the runtime
// building generic metadata, conformance lookups), which the launch path's counts miss.
extension WholeProcessBenchmark {
  /// Instructions of one run of each static program, on a copy without debug information
  /// (valgrind 3.19 cannot read DWARF 5); the protected program's state directory already
  /// holds a finished launch, as on every start but the first. Nil without valgrind or strip.
  func instructions(_ statics: String) throws -> [String: UInt64]? {
    guard InstructionCounts.unavailable() == nil else { return nil }
    var counts: [String: UInt64] = [:]
    for name in ["hello-essentials", "protected-launch"] {
      let copy = workDirectory + "/\(name)-nodebug"
      try Self.run(["strip", "-g", "-o", copy, statics + "/" + name])
      let arguments = name == "protected-launch" ? [workDirectory + "/state-instructions"] : []
      if name == "protected-launch" { _ = try Self.time(copy, arguments: arguments) }
      counts[name] = try InstructionCounts.count(
        copy, arguments, collect: nil, log: workDirectory + "/callgrind-\(name).log")
    }
    return counts
  }

  /// `2.60 M vs 2.21 M (1.17×)`, or why there are no counts.
  static func describeInstructions(_ counts: [String: UInt64]?) -> String {
    guard let counts, let protected = counts["protected-launch"], let hello = counts["hello-essentials"] else {
      return "not measured (" + (InstructionCounts.unavailable() ?? "no counts") + ")"
    }
    return String(
      format: "%.2f M vs %.2f M (%.2f×)", Double(protected) / 1e6, Double(hello) / 1e6,
      Double(protected) / Double(max(1, hello)))
  }
}
