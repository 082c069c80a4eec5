import Foundation
import Synchronization

/// Removes passed scenarios' work directories off the launch path: each is renamed aside at
/// once (so the same path can be used again right away), then emptied by one thread of the
/// lowest priority (nice 19), which takes a core only when the launches leave one idle.
/// Removing a scenario's few files cost its launch ~0.2 ms of CPU, plus the file system's
/// discards, which a target running beside it would otherwise pay for.
///
/// A few emptied directories of the usual shape (`state/` and `launch-1/`) are kept as spares
/// and renamed into place for the next scenarios: making and removing those three directories
/// was a third of the harness's own time per launch on ext4 without a journal, where every new
/// inode skips those freed in the last minutes. Only directories are reused. Files are always
/// removed, so a process that outlived its scenario and still holds one open never writes into
/// another scenario's files.
package final class Sweeper: Sendable {
  private struct Work {
    var paths: [String] = []
    /// Swept and not yet emptied or removed.
    var outstanding = 0
    /// Numbers the renamed directories.
    var swept = 0
    var finished = false
    /// Emptied work directories holding only `state/` and `launch-1/`, both empty.
    var spares: [String] = []
  }

  /// Spares kept at most; more are removed.
  static let spareLimit = 8
  /// The shape of a spare: a scenario's state directory and its first launch's directory.
  static let spareShape: Set<String> = ["state", "launch-1"]

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
          dispose(path)
        } else if finished {
          return
        }
      }
    }
    thread.name = "chaos-sweeper"
    thread.start()
  }

  /// Moves `path` aside and empties or removes it in the background (removes it at once when
  /// it cannot be moved).
  package func sweep(_ path: String) {
    let number = work.withLock { work -> Int in
      work.outstanding += 1
      work.swept += 1
      return work.swept
    }
    let aside = "\(path).removing-\(getpid())-\(number)"
    guard rename(path, aside) == 0 else {
      FileTree.remove(path)
      settle()
      return
    }
    work.withLock { $0.paths.append(aside) }
    signal.signal()
  }

  /// Renames a spare to `workDirectory` (which must not exist), so the scenario finds its
  /// work directory, `state/` and `launch-1/` made and empty. False when there is none.
  package func reuse(as workDirectory: String) -> Bool {
    while let spare = work.withLock({ $0.spares.popLast() }) {
      if rename(spare, workDirectory) == 0 { return true }
      FileTree.remove(spare)
    }
    return false
  }

  /// Returns once everything swept is removed, removes the spares, and stops the thread. What
  /// is still queued is removed here, at the caller's priority: on a machine whose cores are all
  /// busy the nice-19 thread gets almost no CPU, and waiting for it was most of the end of a run
  /// (`chaos bench`'s explore section, both cores busy: 30 s for 120 sequences instead of 22).
  package func finish() {
    work.withLock { $0.finished = true }
    while let path = work.withLock({ $0.paths.isEmpty ? nil : $0.paths.removeFirst() }) { dispose(path) }
    // `done` may hold signals of earlier idle moments: each wait re-checks.
    while work.withLock({ $0.outstanding > 0 }) { done.wait() }
    for spare in work.withLock({ work -> [String] in
      defer { work.spares = [] }
      return work.spares
    }) {
      FileTree.remove(spare)
    }
    signal.signal()
  }

  /// Keeps `path` as a spare when it has the usual shape and there is room, else removes it;
  /// then counts it.
  private func dispose(_ path: String) {
    let wanted = work.withLock { !$0.finished && $0.spares.count < Self.spareLimit }
    if wanted && Self.emptyForReuse(path) {
      work.withLock { $0.spares.append(path) }
    } else {
      FileTree.remove(path)
    }
    settle()
  }

  /// Empties both directories of a work directory of the spare shape; false (nothing to
  /// reuse) for any other shape or when something could not be removed.
  static func emptyForReuse(_ path: String) -> Bool {
    // readdir names each entry once: equal sets are equal listings.
    guard let names = FileTree.entries(path), Set(names) == spareShape else { return false }
    return spareShape.allSatisfy { FileTree.removeContents(path + "/" + $0) }
  }

  /// Counts one swept path as done; the last outstanding one wakes `finish`.
  private func settle() {
    let idle = work.withLock { work -> Bool in
      work.outstanding -= 1
      return work.outstanding == 0
    }
    if idle { done.signal() }
  }
}
