import Foundation

/// What the kubelet shows of a container's previous start (`lastState.terminated`): its
/// `reason` (`OOMKilled`, `Completed` for exit 0, `Error` otherwise) and `exitCode` (128 + N
/// for a death by signal N), as `last_reason` and `last_exit_code`. The harness puts them in
/// the restart event of the next start, so an OOM kill is named there as Kubernetes names it.
enum KubeletLastState {
  static func fields(_ previous: ProcessResult) -> [String: Any] {
    let exitCode: Int32? =
      switch previous.end {
      case .exited(let code): code
      case .signaled(let signal): 128 + signal
      case .timedOut: 128 + SIGKILL
      case nil: nil
      }
    let reason =
      previous.outcome == .oomKilled ? "OOMKilled" : previous.end == .exited(0) ? "Completed" : "Error"
    var fields: [String: Any] = ["last_reason": reason]
    if let exitCode { fields["last_exit_code"] = Int(exitCode) }
    return fields
  }
}
