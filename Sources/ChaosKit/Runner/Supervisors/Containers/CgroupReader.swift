import Foundation

/// Reads a container's cgroup after its process ended, on cgroup v2 (one hierarchy at
/// /sys/fs/cgroup) and v1 (a hierarchy per controller, e.g. /sys/fs/cgroup/memory).
enum CgroupReader {
  static let root = "/sys/fs/cgroup"

  /// Whether /sys/fs/cgroup is the unified (v2) hierarchy.
  static var isUnified: Bool { access(root + "/cgroup.controllers", F_OK) == 0 }

  /// How many processes the kernel's OOM killer killed in the cgroup at `path` (as runc's
  /// `cgroupsPath`): v2 `memory.events` `oom_kill`, v1 `memory.oom_control` `oom_kill`
  /// (Linux 4.13 and later). Nil when the files cannot be read.
  static func oomKills(_ path: String) -> Int? {
    if isUnified { return field("oom_kill", in: root + path + "/memory.events") }
    return field("oom_kill", in: root + "/memory" + path + "/memory.oom_control")
  }

  /// The directories of the cgroup at `path` that still exist (in every v1 hierarchy).
  static func directories(_ path: String) -> [String] {
    var candidates = [root + path]
    if !isUnified {
      let hierarchies = (try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []
      candidates = hierarchies.sorted().map { root + "/" + $0 + path }
    }
    var isDirectory: ObjCBool = false
    return candidates.filter {
      FileManager.default.fileExists(atPath: $0, isDirectory: &isDirectory) && isDirectory.boolValue
    }
  }

  private static func field(_ name: String, in file: String) -> Int? {
    guard let data = FileManager.default.contents(atPath: file) else { return nil }
    for line in String(decoding: data, as: UTF8.self).split(separator: "\n") {
      let words = line.split(separator: " ")
      if words.count == 2, words[0] == name { return Int(words[1]) }
    }
    return nil
  }
}
