import ChaosKit
import Foundation
import Testing

/// `chaos explore` from `swift test`: generated crash loops against kvd, judged by the contract
/// model from the policy kvd declares (protocol 2) — kvd takes no CHAOS_APP and stays up after
/// launching, so each launch is stopped as a supervisor would and the stop must not count.
@Test func exploreFindsNoDivergence() throws {
  // No KVD_DATA_DIR: under chaos kvd keeps its data in the state directory, each run its own.
  let report = try Explorer(options: kvdOptions(sequences: 16, out: "kvd-explore")).run()
  #expect(
    report.failure == nil,
    Comment(rawValue: report.failure.map { "\($0.firstDifference) — scenario written to \($0.path)" } ?? ""))
  #expect(report.sequences == 16)
  #expect(report.protectLaunches > 0, "the generated loops reach protect mode")
  #expect(report.neverFired.contains("kvd.request"), "no launch makes a request: not reached, no divergence")
}

/// With a workload (what `--workload explore-workload.yaml` reads), every launch sets a key over
/// the socket once it finished launching, so the request-time failpoint `kvd.request` fires.
@Test func aWorkloadReachesTheRequestTimeFailpoint() throws {
  var options = kvdOptions(sequences: 8, out: "kvd-explore-workload")
  let client = """
    import socket, sys
    s = socket.socket(socket.AF_UNIX)
    s.connect(sys.argv[1])
    s.sendall(b"SET greeting hello\\n")
    print(s.recv(100).decode().strip())
    """
  options.workload = [
    RequestStep(
      action: .command(CommandStep(arguments: ["python3", "-c", client, "${CHAOS_STATE_DIR}/data/kvd.sock"])))
  ]
  let report = try Explorer(options: options).run()
  #expect(report.failure == nil, Comment(rawValue: report.failure?.firstDifference ?? ""))
  #expect(!(report.coverage["kvd.request"] ?? [:]).isEmpty, "the workload reached kvd.request")
}

/// kvd explored from seed 1, two sequences at a time.
func kvdOptions(sequences: Int, out: String) -> Explorer.Options {
  var options = Explorer.Options(target: ScenarioCase.executable("kvd"))
  options.seed = 1
  options.sequences = sequences
  options.jobs = 2
  options.outDirectory = NSTemporaryDirectory() + "\(out)-\(getpid())"
  return options
}
