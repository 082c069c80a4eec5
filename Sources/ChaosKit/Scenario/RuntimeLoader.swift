import Foundation
import Yams

/// Reads the OCI runtime keys (`runtime`, `memory`, `pids`, `init`) of a scenario or a launch,
/// and `runtime` and `resources` of `kubernetes:`.
enum RuntimeLoader {
  /// The keys it reads in a scenario or a launch.
  static let keys = ["runtime", "memory", "pids", "init"]
  /// Keys allowed in `kubernetes.resources`.
  static let resourcesKeys = ["limits"]
  /// Keys allowed in `kubernetes.resources.limits`.
  static let limitsKeys = ["memory", "pids"]

  /// The settings among `map`'s keys (empty when none is there).
  static func settings(_ map: [String: Node], reader: NodeReader) throws(ScenarioError) -> RuntimeSettings {
    var settings = RuntimeSettings()
    if let node = map["runtime"] { settings.runtime = try runtime(node, reader: reader) }
    if let node = map["memory"] { settings.memoryBytes = try quantity(node, reader: reader, what: "memory") }
    if let node = map["pids"] { settings.pids = Int64(try reader.integer(node, what: "pids", minimum: 1)) }
    if let node = map["init"] {
      let text = try reader.string(node, what: "init")
      guard let initProcess = RuntimeSettings.InitProcess(rawValue: text) else {
        let known = RuntimeSettings.InitProcess.allCases.map(\.rawValue).joined(separator: ", ")
        throw reader.error(node, "unknown init '\(text)' (known: \(known))")
      }
      settings.initProcess = initProcess
    }
    settings.line = keys.compactMap { map[$0]?.mark?.line }.min() ?? 0
    return settings
  }

  /// Limits and an init need a runtime to apply them: a launch that has them without one (at
  /// its level or the scenario's) is an error, since ignoring them would pass a scenario that
  /// never ran under them.
  static func checkRuntimeGiven(_ scenario: Scenario) throws(ScenarioError) {
    for launch in scenario.launches {
      let settings = launch.runtime.over(scenario.runtime)
      guard settings.runtime == nil, !settings.isEmpty else { continue }
      throw ScenarioError(
        path: scenario.path, line: settings.line, column: 1,
        message: "'memory', 'pids' and 'init' need 'runtime: runc' in the launch or the scenario")
    }
  }

  /// `kubernetes.runtime` and `kubernetes.resources.limits`.
  static func kubernetes(_ map: [String: Node], reader: NodeReader) throws(ScenarioError) -> RuntimeSettings {
    var settings = RuntimeSettings()
    if let node = map["runtime"] {
      settings.runtime = try runtime(node, reader: reader)
      settings.line = node.mark?.line ?? 0
    }
    if let node = map["resources"] {
      let resources = try reader.mapping(node, keys: resourcesKeys, what: "resources")
      if let limitsNode = resources["limits"] {
        let limits = try reader.mapping(limitsNode, keys: limitsKeys, what: "limits")
        if let node = limits["memory"] { settings.memoryBytes = try quantity(node, reader: reader, what: "memory") }
        if let node = limits["pids"] { settings.pids = Int64(try reader.integer(node, what: "pids", minimum: 1)) }
      }
      if settings.line == 0 { settings.line = node.mark?.line ?? 0 }
    }
    return settings
  }

  private static func runtime(_ node: Node, reader: NodeReader) throws(ScenarioError) -> RuntimeSettings.Runtime {
    let text = try reader.string(node, what: "runtime")
    guard let runtime = RuntimeSettings.Runtime(rawValue: text) else {
      let known = RuntimeSettings.Runtime.allCases.map(\.rawValue).joined(separator: ", ")
      throw reader.error(node, "unknown runtime '\(text)' (known: \(known))")
    }
    return runtime
  }

  /// A Kubernetes memory quantity: bytes, or a number with `Ki`, `Mi`, `Gi` (powers of 1024)
  /// or `k`, `M`, `G` (powers of 1000); at least 4 MiB, below which runc refuses to start.
  static func quantity(_ node: Node, reader: NodeReader, what: String) throws(ScenarioError) -> Int64 {
    let text = try reader.string(node, what: what).trimmingCharacters(in: .whitespaces)
    let units: [(String, Int64)] = [
      ("Ki", 1 << 10), ("Mi", 1 << 20), ("Gi", 1 << 30), ("k", 1_000), ("M", 1_000_000), ("G", 1_000_000_000),
    ]
    var number = Substring(text)
    var scale: Int64 = 1
    if let unit = units.first(where: { text.hasSuffix($0.0) }) {
      number = number.dropLast(unit.0.count)
      scale = unit.1
    }
    guard let value = Int64(number), value > 0, value <= Int64.max / scale else {
      throw reader.error(node, "'\(what)' must be a quantity like 64Mi, 256M or 1Gi, not '\(text)'")
    }
    guard value * scale >= 4 << 20 else {
      throw reader.error(node, "'\(what)' must be at least 4Mi (runc refuses smaller memory limits), not '\(text)'")
    }
    return value * scale
  }
}
