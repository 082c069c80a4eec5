import Foundation
import LaunchProtection
import Synchronization

/// Removing a scenario's work directory, as `rm -rf` does: depth first with opendir/readdir,
/// never following a symbolic link. `FileManager.removeItem` took a tenth of the harness's time
/// per launch (attribute reads and path bridging for every file).
package enum FileTree {
  /// Removes `path` and everything below it; a missing path is not an error. Returns false
  /// when something could not be removed.
  @discardableResult
  package static func remove(_ path: String) -> Bool {
    if unlink(path) == 0 || errno == ENOENT { return true }
    guard errno == EISDIR || errno == EPERM else { return false }
    guard let stream = opendir(path) else { return false }
    var removed = true
    while let entry = readdir(stream) {
      let name = DirectoryEntry.string(entry)
      if name == "." || name == ".." { continue }
      let child = path + "/" + name
      if Int32(entry.pointee.d_type) == Int32(DT_DIR) {
        removed = remove(child) && removed
      } else if unlink(child) != 0, errno != ENOENT {
        // DT_UNKNOWN on some file systems: a directory there refuses unlink.
        removed = (errno == EISDIR && remove(child)) && removed
      }
    }
    closedir(stream)
    return (rmdir(path) == 0 || errno == ENOENT) && removed
  }
}

extension FileTree {
  /// The names in a directory, `.` and `..` left out; nil when it cannot be read.
  package static func entries(_ path: String) -> [String]? {
    guard let stream = opendir(path) else { return nil }
    defer { closedir(stream) }
    var names: [String] = []
    while let entry = readdir(stream) {
      let name = DirectoryEntry.string(entry)
      if name != "." && name != ".." { names.append(name) }
    }
    return names
  }

  /// Removes everything inside the directory `path`, keeping the directory.
  package static func removeContents(_ path: String) -> Bool {
    guard let names = entries(path) else { return false }
    var removed = true
    for name in names { removed = remove(path + "/" + name) && removed }
    return removed
  }

  /// `mkdir -p`: `mkdir` where the parent exists (one system call, the usual case for a
  /// launch's directories), Foundation's recursive creation otherwise, which also gives the
  /// error a user reads.
  package static func makeDirectories(_ path: String) throws {
    if mkdir(path, 0o755) == 0 { return }
    if errno == EEXIST {
      var info = stat()
      if stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFDIR { return }
    }
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
  }
}
