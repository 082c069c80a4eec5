import Foundation

/// How `ScenarioRunner` runs launches under a real OCI runtime (`runtime:`).
extension ScenarioRunner {
  /// `runtime:` needs a runtime that can run here: where it cannot with the privileges it has
  /// (`checkPrivileges` skipped it without them), the scenario is an error at the line that
  /// asked for it (never passed).
  func checkRuntimeSupport(_ scenario: Scenario) throws(ScenarioError) {
    for launch in scenario.launches {
      let settings = launch.runtime.over(scenario.runtime)
      if let problem = RuntimeSupport.problem(settings) {
        throw ScenarioError(path: scenario.path, line: settings.line, column: 1, message: problem)
      }
    }
  }

  /// The container for one process of a launch (nil: the launch runs no runtime).
  func runtimeContainer(
    _ scenario: Scenario, _ spec: LaunchSpec, target: String, environment: [String: String], stateDirectory: String,
    directory: String
  ) throws(RuntimeContainer.Failure) -> RuntimeContainer? {
    let settings = spec.runtime.over(scenario.runtime)
    guard settings.runtime != nil else { return nil }
    return try RuntimeContainer(
      settings: settings, arguments: [target], environment: environment, volumes: [stateDirectory, directory])
  }

  /// Records what the runtime saw in the process's events file (an OOM kill, as the kubelet
  /// reports `OOMKilled`), so expectations and reports show it.
  static func recordEnding(_ ending: RuntimeContainer.Ending, of container: RuntimeContainer, eventsPath: String) {
    guard ending.oomKilled else { return }
    HarnessEvent.append(
      ["event": "runtime", "action": "oom_killed", "exit_code": 137, "container": container.id], pid: 0,
      to: eventsPath, source: container.runtime.rawValue)
  }
}
