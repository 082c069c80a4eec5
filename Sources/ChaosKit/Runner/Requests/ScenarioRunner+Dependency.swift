import Foundation

/// The scenario's dependency at each launch (the listener is in DependencyServer.swift).
extension ScenarioRunner {
  /// The scenario's listener, up, for the run; nil without `dependency:`.
  func startDependency(_ scenario: Scenario) throws(ScenarioError) -> DependencyServer? {
    guard let spec = scenario.dependency else { return nil }
    do { return try DependencyServer(name: spec.name) } catch {
      throw ScenarioError(path: scenario.path, line: spec.line, column: 1, message: error.description)
    }
  }

  /// Puts the dependency in the launch's state before its first process is spawned, and
  /// records it in each process's events file as `{event: dependency, state, port,
  /// source: harness}` (`down_for_ms` with `down_for`; an event `state: up` follows when it
  /// listens again).
  func setDependency(_ dependency: DependencyServer, _ spec: LaunchSpec, directories: [String]) throws {
    let paths = directories.map { $0 + "/events.ndjson" }
    var fields: [String: Any] = ["event": "dependency", "dependency": dependency.name, "port": dependency.port]
    switch spec.dependency {
    case .up: fields["state"] = "up"
    case .down: fields["state"] = "down"
    case .downFor(let seconds):
      fields["state"] = "down"
      fields["down_for_ms"] = Int((seconds * 1000).rounded())
    }
    for directory in directories { try? FileTree.makeDirectories(directory) }
    for path in paths { HarnessEvent.append(fields, pid: 0, to: path, source: "harness") }
    try dependency.set(spec.dependency, eventsPaths: paths)
  }
}
