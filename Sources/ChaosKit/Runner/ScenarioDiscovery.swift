import Foundation

/// Finds scenario files under paths (folders recursively), sorted by path.
package enum ScenarioDiscovery {
  /// The scenario files under each path (`yamlFiles` without the workload files).
  package static func files(in paths: [String]) throws(ScenarioError) -> [String] {
    try yamlFiles(in: paths).filter { !WorkloadLoader.isWorkload(path: $0) }
  }

  /// The `chaos explore --workload` files under each path (`WorkloadLoader.isWorkload`): kept
  /// beside the scenarios, they are checked as workloads, never loaded as scenarios.
  package static func workloads(in paths: [String]) throws(ScenarioError) -> [String] {
    try yamlFiles(in: paths).filter { WorkloadLoader.isWorkload(path: $0) }
  }

  /// YAML files under each path, hidden files and folders (`.build/`, `.git/`) left out; a
  /// file path is taken as is. Missing paths are errors, with
  /// the existing path that differs only in letter case when there is one (`chaos run
  /// scenarios/` where the folder is `Scenarios/`: case matters on Linux, not on a Mac).
  package static func yamlFiles(in paths: [String]) throws(ScenarioError) -> [String] {
    var files: [String] = []
    for path in paths {
      var isDirectory: ObjCBool = false
      guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
        var message = "no such file or directory"
        if let suggestion = caseInsensitiveMatch(path) { message += "; did you mean \(suggestion)?" }
        throw ScenarioError(path: path, line: 0, column: 0, message: message)
      }
      if !isDirectory.boolValue {
        files.append(path)
        continue
      }
      let enumerator = FileManager.default.enumerator(atPath: path)
      while let relative = enumerator?.nextObject() as? String {
        // Hidden entries are not the user's scenarios: a package's .build/ holds its
        // dependencies' checkouts (their CI workflows are YAML too), .git/ and .github/ others.
        if (relative as NSString).lastPathComponent.hasPrefix(".") {
          enumerator?.skipDescendants()
          continue
        }
        if relative.hasSuffix(".yaml") || relative.hasSuffix(".yml") {
          files.append((path as NSString).appendingPathComponent(relative))
        }
      }
    }
    return Array(Set(files)).sorted()
  }

  /// The existing path that differs from `path` only in the letter case of its components,
  /// written as `path` was (relative stays relative, a trailing `/` stays); nil when there is
  /// none or more than one entry of a folder matches.
  package static func caseInsensitiveMatch(_ path: String) -> String? {
    let absolute = path.hasPrefix("/")
    var current = absolute ? "/" : "."
    var corrected: [String] = []
    for component in path.split(separator: "/", omittingEmptySubsequences: true).map(String.init) {
      let candidate = (current as NSString).appendingPathComponent(component)
      if component == "." || component == ".." || FileManager.default.fileExists(atPath: candidate) {
        corrected.append(component)
        current = candidate
        continue
      }
      let entries = (try? FileManager.default.contentsOfDirectory(atPath: current)) ?? []
      let matches = entries.filter { $0.caseInsensitiveCompare(component) == .orderedSame }
      guard matches.count == 1 else { return nil }
      corrected.append(matches[0])
      current = (current as NSString).appendingPathComponent(matches[0])
    }
    guard !corrected.isEmpty else { return nil }
    var text = (absolute ? "/" : "") + corrected.joined(separator: "/")
    if path.hasSuffix("/") { text += "/" }
    return text == path ? nil : text
  }

  /// The files of shard `index` (1-based) of `count`: every count-th file of the sorted list,
  /// so shards are disjoint, cover everything and do not depend on the machine.
  package static func shard(_ files: [String], index: Int, count: Int) -> [String] {
    files.sorted().enumerated().filter { $0.offset % count == index - 1 }.map(\.element)
  }
}
