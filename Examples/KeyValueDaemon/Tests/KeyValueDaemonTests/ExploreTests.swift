import ChaosKit
import Foundation
import Testing

/// `chaos explore` from `swift test`: generated crash loops against kvd, judged by the contract
/// model from the policy kvd declares (protocol 2) — kvd takes no CHAOS_APP and stays up after
/// launching, so each launch is stopped as a supervisor would and the stop must not count.
@Test func exploreFindsNoDivergence() throws {
  var options = Explorer.Options(target: ScenarioCase.executable("kvd"))
  options.seed = 1
  options.sequences = 16
  options.jobs = 2
  options.environment = ["KVD_DATA_DIR": "${CHAOS_STATE_DIR}/data"]  // each run its own data
  options.outDirectory = NSTemporaryDirectory() + "kvd-explore-\(getpid())"
  let report = try Explorer(options: options).run()
  #expect(
    report.failure == nil,
    Comment(rawValue: report.failure.map { "\($0.firstDifference) — scenario written to \($0.path)" } ?? ""))
  #expect(report.sequences == 16)
  #expect(report.protectLaunches > 0, "the generated loops reach protect mode")
}
