import Foundation

/// What a launch process is given: the protocol's environment and the app configuration.
extension ScenarioRunner {
  func environment(
    _ scenario: Scenario, _ spec: LaunchSpec, events: String, state: String, port: Int?, dependencyPort: Int? = nil
  ) -> [String: String] {
    let inherited = Self.inheritedEnvironment
    var environment = ["PATH": inherited["PATH"] ?? "/usr/bin:/bin", "HOME": inherited["HOME"] ?? "/root"]
    // `${CHAOS_STATE_DIR}` in a scenario's env values names this run's state directory,
    // `${CHAOS_PORT}` the launch's port, `${CHAOS_DEPENDENCY_PORT}` the scenario's dependency's.
    let portText = port.map(String.init) ?? ""
    let dependencyText = dependencyPort.map(String.init) ?? ""
    // `${CHAOS_SERVICE_<NAME>_PORT}`… the ports of the scenario's `services:`.
    let services = scenario.environment.filter { $0.key.hasPrefix("CHAOS_SERVICE_") }
    let expand = { (value: String) in
      RequestSession.expand(
        value.replacingOccurrences(of: "${CHAOS_STATE_DIR}", with: state)
          .replacingOccurrences(of: "${CHAOS_PORT}", with: portText)
          .replacingOccurrences(of: "${CHAOS_DEPENDENCY_PORT}", with: dependencyText), environment: services)
    }
    environment.merge(scenario.environment.mapValues(expand)) { $1 }
    environment.merge(spec.environment.mapValues(expand)) { $1 }
    environment["CHAOS_FAILPOINTS"] = spec.failpoints
    environment["CHAOS_EVENTS"] = events
    environment["CHAOS_STATE_DIR"] = state
    if let port { environment["CHAOS_PORT"] = String(port) }
    if let dependencyPort { environment["CHAOS_DEPENDENCY_PORT"] = String(dependencyPort) }
    environment["CHAOS_APP"] = Self.appJSON(scenario.app, spec.app)
    environment["SWIFT_BACKTRACE"] = scenario.swiftBacktrace
    if let seed = options.seed { environment["CHAOS_SEED"] = String(seed) }
    return environment
  }

  /// The harness's own environment, read once: `ProcessInfo.environment` builds a dictionary
  /// from `environ` on every call (5 % of the harness's time when read per launch).
  static let inheritedEnvironment = ProcessInfo.processInfo.environment

  /// The scenario's `app` with the launch's fields merged over it, as JSON text.
  static func appJSON(_ base: JSONValue?, _ override: JSONValue?) -> String {
    var fields: [String: JSONValue] = [:]
    if case .object(let object)? = base { fields = object }
    if case .object(let object)? = override { fields.merge(object) { $1 } }
    return JSONValue.object(fields).jsonText
  }

  /// The last `lines` non-empty lines of a text file (the target's stderr).
  static func tail(of path: String, lines: Int) -> [String] {
    guard let data = FileManager.default.contents(atPath: path) else { return [] }
    return Array(
      String(decoding: data.suffix(8192), as: UTF8.self).split(separator: "\n").map(String.init).suffix(lines))
  }
}
