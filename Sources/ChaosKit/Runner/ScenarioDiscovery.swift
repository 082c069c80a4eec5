import Foundation

/// Finds scenario files under paths (folders recursively), sorted by path.
package enum ScenarioDiscovery {
  /// YAML files under each path; a file path is taken as is. Missing paths are errors.
  package static func files(in paths: [String]) throws(ScenarioError) -> [String] {
    var files: [String] = []
    for path in paths {
      var isDirectory: ObjCBool = false
      guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
        throw ScenarioError(path: path, line: 0, column: 0, message: "no such file or directory")
      }
      if !isDirectory.boolValue {
        files.append(path)
        continue
      }
      let enumerator = FileManager.default.enumerator(atPath: path)
      while let relative = enumerator?.nextObject() as? String {
        if relative.hasSuffix(".yaml") || relative.hasSuffix(".yml") {
          files.append((path as NSString).appendingPathComponent(relative))
        }
      }
    }
    return Array(Set(files)).sorted()
  }

  /// The files of shard `index` (1-based) of `count`: every count-th file of the sorted list,
  /// so shards are disjoint, cover everything and do not depend on the machine.
  package static func shard(_ files: [String], index: Int, count: Int) -> [String] {
    files.sorted().enumerated().filter { $0.offset % count == index - 1 }.map(\.element)
  }
}
