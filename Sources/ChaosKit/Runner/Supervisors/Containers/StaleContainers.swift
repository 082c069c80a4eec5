import Foundation

/// Removes what a harness that died without cleaning up (SIGKILLed, or the machine's OOM
/// killer) left behind: its containers, their cgroups, bundles and bind mounts. Each bundle
/// names its harness (`chaos-<pid>-<n>`); only those whose harness is gone are touched.
enum StaleContainers {
  /// Done once per harness process, before its first container.
  static let swept: [String] = sweep()

  private static func sweep() -> [String] {
    let entries = (try? FileManager.default.contentsOfDirectory(atPath: OCIBundle.parent)) ?? []
    var removed: [String] = []
    for id in entries {
      let parts = id.split(separator: "-")
      guard parts.count == 3, let pid = pid_t(parts[1]), pid != getpid(), kill(pid, 0) != 0, errno == ESRCH else {
        continue
      }
      // A runtime command's error file, or the support probe's folder.
      if id.hasPrefix("cmd-") { unlink(OCIBundle.parent + "/" + id) }
      if id.hasPrefix("probe-") {
        for file in ["config.json", "out.txt"] { unlink(OCIBundle.parent + "/\(id)/\(file)") }
        rmdir(OCIBundle.parent + "/" + id)
      }
      guard id.hasPrefix("chaos-") else { continue }
      for runtime in RuntimeSettings.Runtime.allCases {
        guard access("/run/\(runtime.rawValue)/\(id)", F_OK) == 0, let path = RuntimeCommand.find(runtime.rawValue)
        else { continue }
        _ = RuntimeCommand.run(path, ["delete", "-f", id])
      }
      var bundle = OCIBundle(id: id, mounted: true)
      _ = bundle.remove()
      for directory in CgroupReader.directories("/" + id) { rmdir(directory) }
      removed.append(id)
    }
    return removed
  }
}
