import Foundation

/// A second attempt when the first failed in the machine, not in the target: the harness
/// could not judge the launch, so the scenario runs again from the start, once, and says so.
extension ScenarioRunner {
  /// Runs the scenario, letting `judge` re-decide each launch's expectations from what its
  /// processes showed before they are checked (`chaos explore`). A first attempt that failed in
  /// the environment (``ScenarioResult/environmentFailure``) is run again once; its artifacts
  /// are kept beside the second's, in `<artifacts>.attempt-1`.
  package func run(_ scenario: Scenario, round: Int = 1, judge: LaunchJudge?) -> ScenarioResult {
    let first = runAttempt(scenario, round: round, judge: judge)
    guard let reason = first.environmentFailure, !ChildRegistry.shared.isCancelled else { return first }
    if let artifacts = first.artifacts {
      FileTree.remove(artifacts + ".attempt-1")
      _ = rename(artifacts, artifacts + ".attempt-1")
    }
    var second = runAttempt(scenario, round: round, judge: judge)
    second.retried = reason
    return second
  }
}

extension ScenarioResult {
  /// Why this result says nothing of the target, when the machine failed under it; nil
  /// otherwise. One such failure is known, seen only on a loaded machine: under real systemd,
  /// the harness's `ExecStopPost=` exit recorder could not be put in the unit's control group
  /// (`status=219/CGROUP`, cgroup v1), so how a start ended is unknown.
  package var environmentFailure: String? {
    guard !passed, skipped == nil else { return nil }
    for process in processes where !process.failures.isEmpty {
      let journal = process.artifacts + "/journal.txt"
      guard let text = try? String(contentsOfFile: journal, encoding: .utf8),
        text.contains("Control process exited, code=exited, status=219/CGROUP")
      else { continue }
      return "launch \(process.launch): systemd could not put the harness's exit recorder (ExecStopPost=) "
        + "in the unit's control group (219/CGROUP), so how the start ended was not recorded"
    }
    return nil
  }
}
