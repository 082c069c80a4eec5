#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// The state directory, made on the first update that cannot open its lock file.
extension StateStore {
  /// `mkdir` of the state directory (and of its missing parents, as `/var/lib/app/launch`
  /// before `/var/lib/app` exists); a failure is reported, the update goes on.
  func createDirectory(_ problems: inout [StateProblem]) {
    if mkdir(directory, 0o755) != 0, errno != EEXIST {
      let code = errno
      if code != ENOENT || !Self.makeDirectories(directory) {
        problems.append(.writeFailed(path: directory, operation: "mkdir", errno: code))
      }
    }
  }

  /// `mkdir -p`: each missing directory of `path`, parents first, with mode 0777 less the
  /// umask (as `FileManager.createDirectory(withIntermediateDirectories:)` made them).
  static func makeDirectories(_ path: String) -> Bool {
    var prefix = path.hasPrefix("/") ? "" : "."
    for component in path.split(separator: "/") {
      prefix += "/" + component
      if mkdir(prefix, 0o777) != 0, errno != EEXIST { return false }
    }
    return true
  }
}
