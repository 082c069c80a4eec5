import Failpoints
import Foundation

/// What a scenario needs of this machine, checked before its first launch.
extension ScenarioRunner {
  /// What `run` checks before the first launch, without running one: the target resolves and,
  /// when it lists its failpoints, declares every name the scenario's `failpoints:` use.
  public func preflight(_ scenario: Scenario) throws(ScenarioError) {
    try checkFailpointNames(scenario, target: try resolveTarget(scenario))
  }

  /// `container: true` needs PID and mount namespaces: where they cannot be made although
  /// the run has CAP_SYS_ADMIN (a seccomp policy; without it `checkPrivileges` skipped the
  /// scenario), it is an error that says why and how to enable them (never passed).
  func checkContainerSupport(_ scenario: Scenario) throws(ScenarioError) {
    let line: Int
    if scenario.container {
      line = scenario.containerLine
    } else if let launch = scenario.launches.first(where: { $0.container == true }) {
      line = launch.line
    } else {
      return
    }
    if let problem = ProcessLauncher.containerProblem {
      throw ScenarioError(path: scenario.path, line: line, column: 1, message: problem)
    }
  }
}
