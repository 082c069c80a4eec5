#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// What protect mode repairs, in the app's data directory (never the protection state).
enum Repairs {
  static func dataDirectory(stateDirectory: String) -> String { stateDirectory + "/app-data" }

  static func disabledTasks(dataDirectory: String) -> [String] {
    ((try? String(contentsOfFile: dataDirectory + "/disabled-tasks", encoding: .utf8)) ?? "")
      .split(separator: "\n").map(String.init)
  }

  /// Validates a repair name; nil when it is fine.
  static func problem(with repair: String) -> String? {
    if ["clear-cache", "reset-config"].contains(repair) || repair.hasPrefix("disable-task:") { return nil }
    return "unknown repair '\(repair)' (known: clear-cache, reset-config, disable-task:<name>)"
  }

  static func perform(_ repair: String, dataDirectory: String) {
    try? FileManager.default.createDirectory(atPath: dataDirectory, withIntermediateDirectories: true)
    switch repair {
    case "clear-cache":
      try? FileManager.default.removeItem(atPath: dataDirectory + "/cache.bin")
    case "reset-config":
      try? FileManager.default.removeItem(atPath: dataDirectory + "/config.json")
    default:
      let task = String(repair.dropFirst("disable-task:".count))
      let list = disabledTasks(dataDirectory: dataDirectory) + [task]
      let data = Data(list.joined(separator: "\n").utf8)
      _ = FileManager.default.createFile(atPath: dataDirectory + "/disabled-tasks", contents: data)
    }
  }
}
