import Foundation
import Yams

/// A workload file (`chaos explore --workload`): a mapping whose `requests:` is a list of
/// request steps in the scenario format, read by the scenario loader's own parser.
package enum WorkloadLoader {
  /// Loads the steps; errors name the file, line and column as a scenario's do.
  package static func load(path: String) throws(ScenarioError) -> [RequestStep] {
    guard let data = FileManager.default.contents(atPath: path), let text = String(data: data, encoding: .utf8) else {
      throw ScenarioError(path: path, line: 0, column: 0, message: "cannot read the file as UTF-8 text")
    }
    let root: Node?
    do {
      root = try Yams.compose(yaml: text)
    } catch {
      throw ScenarioError(path: path, line: 0, column: 0, message: "not YAML: \(error)")
    }
    guard let root else { throw ScenarioError(path: path, line: 1, column: 1, message: "empty workload file") }
    let reader = NodeReader(path: path)
    let top = try reader.mapping(root, keys: ["requests"], what: "workload")
    guard let requests = top["requests"] else { throw reader.error(root, "missing required key 'requests'") }
    let steps = try reader.sequence(requests, what: "requests").map { node throws(ScenarioError) in
      try ScenarioLoader.request(node, reader: reader)
    }
    if steps.isEmpty { throw reader.error(requests, "'requests' must list at least one request") }
    return steps
  }

  /// Whether the file has a workload's shape: a mapping with `requests:` and neither `name:`
  /// nor `launches:`, which every scenario has. A workload kept beside the scenarios is then
  /// validated as a workload (`chaos validate`) and not run as a scenario; a file that is not
  /// YAML is not a workload (the scenario loader says what is wrong with it).
  package static func isWorkload(path: String) -> Bool {
    guard let data = FileManager.default.contents(atPath: path) else { return false }
    let text = String(decoding: data, as: UTF8.self)
    // Most scenarios have no requests: only files that mention them are parsed here.
    guard text.contains("requests") else { return false }
    guard case .mapping(let mapping)? = try? Yams.compose(yaml: text) else { return false }
    let keys = Set(mapping.keys.compactMap { $0.scalar?.string })
    return keys.contains("requests") && !keys.contains("name") && !keys.contains("launches")
  }
}
