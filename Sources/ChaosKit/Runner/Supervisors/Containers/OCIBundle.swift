import Foundation

/// An OCI bundle for one launch: `config.json` (runtime-spec 1.0) and `rootfs`, a read-only,
/// non-recursive bind mount of the host's `/` that the harness makes and removes. Not
/// recursive, so the runtime mounts /proc, /sys and /dev itself and no host mount below `/`
/// shows through except the volumes the config binds.
///
/// The bundle lives outside the scenario's artifacts (under `/run/launchchaos`): a recursive
/// removal of the artifacts must never walk into a bind of `/`. It is removed with `rmdir` and
/// `unlink` only, which fail rather than descend while the bind is still mounted.
struct OCIBundle {
  /// Where every bundle goes.
  static let parent = "/run/launchchaos"

  let directory: String
  var rootfs: String { directory + "/rootfs" }
  private(set) var mounted = false

  /// `mounted`: whether `rootfs` is known to be mounted (a stale bundle's is).
  init(id: String, mounted: Bool = false) {
    directory = Self.parent + "/" + id
    self.mounted = mounted
  }

  struct Failure: Error, CustomStringConvertible {
    var description: String
  }

  /// Makes the directory, writes `config` and binds `/` at `rootfs`.
  mutating func create(config: [String: Any]) throws(Failure) {
    for path in [Self.parent, directory, rootfs] where mkdir(path, 0o700) != 0 && errno != EEXIST {
      throw Failure(description: "cannot create \(path): \(String(cString: strerror(errno)))")
    }
    do {
      let data = try JSONSerialization.data(withJSONObject: config, options: [.prettyPrinted, .sortedKeys])
      try data.write(to: URL(fileURLWithPath: directory + "/config.json"))
    } catch {
      throw Failure(description: "cannot write \(directory)/config.json: \(error)")
    }
    guard mount("/", rootfs, nil, UInt(MS_BIND), nil) == 0 else {
      throw Failure(description: "cannot bind / at \(rootfs): \(String(cString: strerror(errno)))")
    }
    mounted = true
  }

  /// Unmounts `rootfs` and removes the bundle; what it could not do, said (a leak).
  mutating func remove() -> String? {
    if mounted {
      // MNT_DETACH: a runtime still holding the mount (it should not, after delete) cannot
      // keep it in the host's table.
      guard umount2(rootfs, Int32(MNT_DETACH)) == 0 || errno == EINVAL || errno == ENOENT else {
        return "cannot unmount \(rootfs): \(String(cString: strerror(errno)))"
      }
      mounted = false
    }
    unlink(directory + "/config.json")
    if rmdir(rootfs) != 0 && errno != ENOENT { return "cannot remove \(rootfs): \(String(cString: strerror(errno)))" }
    if rmdir(directory) != 0 && errno != ENOENT {
      return "cannot remove \(directory): \(String(cString: strerror(errno)))"
    }
    return nil
  }
}
