import Synchronization

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

/// The update under the lock: the lock and the state file taken (kept ones reused), the state
/// read, changed by the caller and written back.
extension StateStore {
  /// Descriptors an update leaves for the next update of the same store, so that a launch's
  /// later updates (`launchingFinished`) neither open nor close the lock and the state file
  /// again: the lock file is never renamed; the state file is reused only while `sameFile`
  /// finds the same inode under its name (another process may have renamed a new one over it).
  /// An update takes them out (a concurrent update finds none and opens its own, whose `flock`
  /// excludes the kept one's) and puts them back; a forked child never reuses them.
  struct KeptFiles: Sendable {
    var lock: Int32 = -1
    var state: Int32 = -1
    var stateWritable = false
    var stateIdentity: DurableFile.FileIdentity?
    var generation: UInt64 = 0

    var isEmpty: Bool { lock < 0 && state < 0 }

    func close() {
      if lock >= 0 { closeDescriptor(lock) }
      if state >= 0 { closeDescriptor(state) }
    }
  }

  func update<T>(
    replacingWith replacement: LaunchState?, endingLaunch: Bool = false,
    _ body: (inout LaunchState, StateDirectory?) -> T
  ) -> (result: T, problems: [StateProblem]) {
    var result: T?
    let problems = updateState(replacingWith: replacement, endingLaunch: endingLaunch) { result = body(&$0, $1) }
    // `updateState` calls `body` exactly once on every path.
    return (result!, problems)
  }

  /// The work of `update`, not generic over its result: specialized per result type, its whole
  /// body was copied into every program once per caller's type (11 KiB each).
  @inline(never)
  private func updateState(
    replacingWith replacement: LaunchState?, endingLaunch: Bool,
    _ body: (inout LaunchState, StateDirectory?) -> Void
  ) -> [StateProblem] {
    if endingLaunch { keepsFiles.store(false, ordering: .releasing) }
    var problems: [StateProblem] = []
    var check = false
    guard let directory = openDirectory(&problems, check: &check) else {
      // Unprotected: nothing is read (another user's state never counts), nothing written.
      var state = replacement ?? LaunchState()
      body(&state, nil)
      return problems
    }
    var files = takeKeptFiles()
    var lock: FileLock?
    if files.lock >= 0 {
      if let problem = FileLock.take(
        files.lock, path: directory.path(of: StateDirectory.lockName), timeout: lockTimeout)
      {
        problems.append(problem)
        closeDescriptor(files.lock)
      } else {
        lock = FileLock(fd: files.lock, kept: true)
      }
      files.lock = -1
    } else {
      switch FileLock.acquire(in: directory, StateDirectory.lockName, timeout: lockTimeout, check: check) {
      case .success(let taken): lock = taken
      case .failure(let problem) where Self.isRefusal(problem):
        // A refused lock file (a symlink, a FIFO…) is moved aside, and a new one made and taken.
        let moved = moveAside(problem, named: StateDirectory.lockName, in: directory)
        problems.append(moved)
        if moved.movedTo != nil,
          case .success(let taken) = FileLock.acquire(
            in: directory, StateDirectory.lockName, timeout: lockTimeout)
        {
          lock = taken
        }
      case .failure(let problem): problems.append(problem)
      }
    }
    // The lock's descriptor is kept for the next update (unlocked, not closed).
    lock?.kept = true

    // Opened once: read here, and an in-place write goes through the same descriptor.
    var file: DurableFile.Opened
    // Why the file could not be read, if it could not.
    var opened: DurableFile.Failure?
    if files.state >= 0, let identity = files.stateIdentity,
      DurableFile.sameFile(StateDirectory.stateName, in: directory, as: identity)
    {
      file = DurableFile.Opened(fd: files.state, writable: files.stateWritable, bytes: nil, identity: identity)
      do throws(DurableFile.Failure) {
        file.bytes = try DurableFile.reread(files.state)
        opened = nil
      } catch {
        opened = error
      }
    } else {
      if files.state >= 0 { closeDescriptor(files.state) }
      (file, opened) = DurableFile.openForUpdate(in: directory, StateDirectory.stateName, mode: fileMode, check: check)
    }
    files.state = -1
    // Set when the file is renamed (moved aside, or replaced by a write): its descriptor is
    // then closed, not kept.
    var stateRenamed = false
    defer {
      let keeping = keepsFiles.load(ordering: .acquiring)
      if keeping, !stateRenamed, file.fd >= 0, let identity = file.identity {
        files.state = file.fd
        files.stateWritable = file.writable
        files.stateIdentity = identity
      } else {
        file.close()
      }
      if let lock {
        if keeping {
          // Unlocked before it is put back: an update that takes it then locks it anew.
          lock.release()
          files.lock = lock.fd
        } else {
          // Closing its only descriptor releases the flock.
          closeDescriptor(lock.fd)
        }
      }
      keep(files)
    }
    var state: LaunchState
    var layout = StateFileFormat.Layout.none
    let known = lastWritten.withLock { $0 }
    do throws(StateProblem) {
      let read = { () throws(DurableFile.Failure) in
        if let opened { throw opened }
        return file.bytes
      }
      let loaded = try Self.decode(read, path: directory.path(of: StateDirectory.stateName), known: known)
      state = loaded.state ?? LaunchState()
      layout = loaded.layout
    } catch {
      problems.append(moveAside(error, named: StateDirectory.stateName, in: directory))
      stateRenamed = true
      state = LaunchState()
    }
    if let replacement {
      state = replacement
      layout = .none
    }
    let before = state
    body(&state, directory)
    if state != before || replacement != nil || problems.contains(where: Self.needsRewrite) {
      let fd = file.writable ? file.fd : -1
      // Taken out of `file`, so the in-place write patches this image for the memo instead of a copy.
      let current = replacement == nil ? file.bytes : nil
      file.bytes = nil
      if let problem = write(state, over: layout, of: current, through: fd, in: directory, replaced: &stateRenamed) {
        problems.append(problem)
      }
    }
    return problems
  }

  /// The kept descriptors, taken out for one update (none in a forked child: its copies share
  /// the parent's open files and `flock`s, so they are closed there).
  private func takeKeptFiles() -> KeptFiles {
    let files = kept.withLock { files in
      defer { files = KeptFiles() }
      return files
    }
    if files.isEmpty || files.generation == ForkGeneration.current { return files }
    files.close()
    return KeptFiles()
  }

  /// Puts `files` back for the next update, unless a concurrent update already did, or the
  /// store keeps none any more (then they are closed).
  private func keep(_ files: KeptFiles) {
    guard keepsFiles.load(ordering: .acquiring) else { return files.close() }
    var files = files
    files.generation = ForkGeneration.current
    let spare = kept.withLock { slot -> KeptFiles in
      guard slot.isEmpty else { return files }
      slot = files
      return KeptFiles()
    }
    spare.close()
  }

  /// The directory, opened and checked by the first update; nil when it is refused (reported
  /// once) or cannot be opened now (reported, tried again by the next update). `check` is set
  /// for the update that opened it: that one checks the files too.
  private func openDirectory(_ problems: inout [StateProblem], check: inout Bool) -> StateDirectory? {
    opened.withLock { opening in
      switch opening {
      case .open(let directory): return directory
      case .refused: return nil
      case .notYet:
        var notices: [StateProblem] = []
        let result = StateDirectory.open(
          directory, create: true, uid: owner, readerGroup: readerGroup, notices: &notices)
        problems += notices
        switch result {
        case .success(let directory?):
          opening = .open(directory)
          check = true
          return directory
        case .success(nil): return nil
        case .failure(let problem):
          problems.append(problem)
          if Self.isRefusal(problem) { opening = .refused }
          return nil
        }
      }
    }
  }

  /// A problem of the trust rule, not of I/O.
  static func isRefusal(_ problem: StateProblem) -> Bool {
    problem.code == .untrusted || problem.code == .wrongFileType
  }

  /// Renames the unusable file `name` next to itself (within `directory`: a symlink is renamed,
  /// never followed), so nothing is lost and the next write starts clean.
  private func moveAside(_ problem: StateProblem, named name: String, in directory: StateDirectory) -> StateProblem {
    let stamp = Int(Date().timeIntervalSince1970 * 1000)
    let label =
      switch problem.code.known {
      case .corrupt: "corrupt"
      case .futureVersion: "v\(problem.foundVersion ?? 0)"
      case .untrusted, .wrongFileType: "refused"
      case .unreadable, .writeFailed, .lockUnavailable: "unreadable"
      }
    let target = "\(name).\(label)-\(stamp)-\(getpid())"
    var moved = problem
    moved.movedTo = renameat(directory.fd, name, directory.fd, target) == 0 ? directory.path + "/" + target : nil
    return moved
  }
}

// `close` by a name of its own: `KeptFiles.close()` hides the global function.
private func closeDescriptor(_ fd: Int32) { _ = close(fd) }
