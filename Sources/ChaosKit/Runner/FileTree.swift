import Foundation
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
      let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
        String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
      }
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

/// Removes passed scenarios' work directories off the launch path: each is renamed aside at
/// once (so the same path can be used again right away), then removed by one thread of the
/// lowest priority (nice 19), which takes a core only when the launches leave one idle.
/// Removing a scenario's few files cost its launch ~0.2 ms of CPU, plus the file system's
/// discards, which a target running beside it would otherwise pay for.
package final class Sweeper: Sendable {
  private struct Work {
    var paths: [String] = []
    /// Swept and not yet removed.
    var outstanding = 0
    /// Numbers the renamed directories.
    var swept = 0
    var finished = false
  }

  private let work = Mutex(Work())
  private let signal = DispatchSemaphore(value: 0)
  private let done = DispatchSemaphore(value: 0)

  package init() {
    let thread = Thread { [self] in
      // Per thread on Linux: `who` 0 is the calling thread, not the whole process.
      setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, 19)
      while true {
        signal.wait()
        let (path, finished): (String?, Bool) = work.withLock { work in
          (work.paths.isEmpty ? nil : work.paths.removeFirst(), work.finished)
        }
        if let path {
          remove(path)
        } else if finished {
          return
        }
      }
    }
    thread.name = "chaos-sweeper"
    thread.start()
  }

  /// Moves `path` aside and removes it in the background (at once when it cannot be moved).
  package func sweep(_ path: String) {
    let number = work.withLock { work -> Int in
      work.outstanding += 1
      work.swept += 1
      return work.swept
    }
    let aside = "\(path).removing-\(getpid())-\(number)"
    guard rename(path, aside) == 0 else {
      remove(path)
      return
    }
    work.withLock { $0.paths.append(aside) }
    signal.signal()
  }

  /// Returns once everything swept is removed, and stops the thread.
  package func finish() {
    work.withLock { $0.finished = true }
    // `done` may hold signals of earlier idle moments: each wait re-checks.
    while work.withLock({ $0.outstanding > 0 }) { done.wait() }
    signal.signal()
  }

  /// Removes one swept path and counts it; the last outstanding one wakes `finish`.
  private func remove(_ path: String) {
    FileTree.remove(path)
    let idle = work.withLock { work -> Bool in
      work.outstanding -= 1
      return work.outstanding == 0
    }
    if idle { done.signal() }
  }
}

extension FileTree {
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
