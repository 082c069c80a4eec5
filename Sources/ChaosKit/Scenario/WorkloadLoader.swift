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
}
