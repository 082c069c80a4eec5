import Failpoints
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

/// Reads and durably updates the protection state file of one directory.
///
/// Every update runs under an advisory lock, so processes sharing the directory never lose
/// an increment. Problems are returned, never thrown: the launch must go on. The file's
/// layout (two checksummed slots) is `StateFileFormat`; what a write survives is `durability`.
public final class StateStore: Sendable {
  /// The directory the app chose; created on first write (0700, parents included). When other
  /// users can write it, the state lives in its private subdirectory (`StateDirectory`).
  public let directory: String
  /// The state file: inside `directory`, or inside its private subdirectory once an update
  /// found `directory` shared.
  public var statePath: String { filesDirectory + "/" + StateDirectory.stateName }
  /// The lock file, beside the state file.
  public var lockPath: String { filesDirectory + "/" + StateDirectory.lockName }

  /// What an update survives once it returned (see `Durability`).
  public let durability: Durability
  private let lockTimeout: Duration
  private let failpoints: FailpointRegistry
  /// A group that may read the files (`LaunchOrganizer.Configuration.readableByGroup`).
  private let readerGroup: UInt32?
  /// The uid whose state this is: nil, this process's effective uid (a tool inspecting
  /// another user's state names it).
  private let owner: uid_t?
  /// The directory, opened and checked once by the first update (the launch's), and kept:
  /// every later update of this store opens its files relative to it.
  private let opened = Mutex(Opening.notYet)
  /// The lock's and the state file's descriptors, left by an update for the next one (see
  /// `KeptFiles`).
  private let kept = Mutex(KeptFiles())
  /// Whether updates keep them: during the launch only (`updateEndingLaunch`), so that a
  /// launched app holds no descriptor on the state files.
  private let keepsFiles = Atomic<Bool>(true)
  /// The file this store last wrote, with its state: the next update of the same process
  /// (`launchingFinished` after `finishLaunching`) usually reads those bytes back and need
  /// neither check their slots nor decode them. A memo of a pure function: only a file equal
  /// to this one, byte for byte, is answered from it (another process's write makes other
  /// bytes), and only a state inside the documented range is kept, so the answer is what
  /// reading would give, checks included.
  private let lastWritten = Mutex(Written())

  /// A whole state file, its state and its layout (empty file: none). A struct, not an
  /// optional tuple, whose generic metadata a fresh process would build at run time.
  struct Written: Sendable {
    var file: [UInt8] = []
    var state = LaunchState()
    var layout = StateFileFormat.Layout.none
  }

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

  /// Where the first update's directory check left the store.
  enum Opening: Sendable {
    case notYet
    /// Open. The update that opened it also checked the lock and the state file with `fstat`
    /// (type and owner): what predates the process is checked once; what appears in the
    /// directory after that was made by this uid or root, the only ones who can write it.
    case open(StateDirectory)
    /// Refused by the trust rule (already reported): no update reads or writes anything.
    case refused
  }

  /// Creates a store for `directory`.
  public convenience init(
    directory: String, durability: Durability = .processCrash, lockTimeout: Duration = .seconds(2),
    failpoints: FailpointRegistry = .shared
  ) {
    self.init(
      directory: directory, durability: durability, lockTimeout: lockTimeout, failpoints: failpoints, readerGroup: nil)
  }

  /// Creates a store for `directory` whose files `readerGroup` may read; `owner`: the uid whose
  /// state it is (nil: this process's effective uid), for a tool reading another user's state.
  package init(
    directory: String, durability: Durability = .processCrash, lockTimeout: Duration = .seconds(2),
    failpoints: FailpointRegistry = .shared, readerGroup: UInt32?, owner: uid_t? = nil
  ) {
    self.directory = directory
    self.durability = durability
    self.lockTimeout = lockTimeout
    self.failpoints = failpoints
    self.readerGroup = readerGroup
    self.owner = owner
  }

  deinit { closeDirectory() }

  /// Closes the directory's descriptor, as the process's death would (a benchmark that leaves
  /// thousands of launches unfinished in one process); the next update opens it again.
  package func closeDirectory() {
    let closing = opened.withLock { opening in
      defer { opening = .notYet }
      if case .open(let directory) = opening { return directory.fd }
      return -1
    }
    if closing >= 0 { close(closing) }
    kept.withLock { files in
      files.close()
      files = KeptFiles()
    }
  }

  /// The directory the files are in, as far as this store knows.
  private var filesDirectory: String {
    if case .open(let opened) = opened.withLock({ $0 }) { return opened.path }
    return directory
  }

  /// The mode of the files this store makes or narrows.
  private var fileMode: mode_t { readerGroup == nil ? 0o600 : 0o640 }

  /// What `read()` could not accept.
  public struct ReadError: Error, CustomStringConvertible {
    /// The problem, as an update would report it (without moving the file).
    public var problem: StateProblem
    public var description: String { problem.description }
  }

  /// Reads the state without locking or moving anything (for inspection, e.g. by the harness),
  /// under the same trust rule as an update. Returns nil when there is no state file yet.
  public func read() throws(ReadError) -> LaunchState? {
    var notices: [StateProblem] = []
    let opened: StateDirectory
    switch StateDirectory.open(directory, create: false, uid: owner, notices: &notices) {
    case .success(nil): return nil
    case .success(let some?): opened = some
    case .failure(let problem): throw ReadError(problem: problem)
    }
    defer { close(opened.fd) }
    let read = DurableFile.read(in: opened, StateDirectory.stateName).map { $0?.bytes }
    switch Self.decode(read, path: opened.path(of: StateDirectory.stateName)) {
    case .success(let loaded): return loaded.state
    case .failure(let problem): throw ReadError(problem: problem)
    }
  }

  /// Replaces the state file with `state` as a new file, under the lock (for tools and tests
  /// that set up a state; the launch path uses `update`). Returns the problem, if any.
  public func overwrite(_ state: LaunchState) -> StateProblem? {
    let (_, problems) = update(replacingWith: state) { _, _ in }
    return problems.first
  }

  /// Runs `body` on the current state under the lock and persists the result if it changed.
  ///
  /// A state that cannot be read is moved aside and `body` sees an empty state.
  func update<T>(_ body: (inout LaunchState) -> T) -> (result: T, problems: [StateProblem]) {
    update(replacingWith: nil) { state, _ in body(&state) }
  }

  /// `update`, with the opened directory (nil when refused or unusable) for the crash reports.
  func updateWithDirectory<T>(_ body: (inout LaunchState, StateDirectory?) -> T) -> (
    result: T, problems: [StateProblem]
  ) {
    update(replacingWith: nil, body)
  }

  /// `update` for the launch's end: its descriptors are closed, not kept, and none is kept from
  /// then on (a launched app holds no descriptor on the state files).
  func updateEndingLaunch<T>(_ body: (inout LaunchState) -> T) -> (result: T, problems: [StateProblem]) {
    update(replacingWith: nil, endingLaunch: true) { state, _ in body(&state) }
  }

  private func update<T>(
    replacingWith replacement: LaunchState?, endingLaunch: Bool = false,
    _ body: (inout LaunchState, StateDirectory?) -> T
  ) -> (result: T, problems: [StateProblem]) {
    if endingLaunch { keepsFiles.store(false, ordering: .releasing) }
    var problems: [StateProblem] = []
    var check = false
    guard let directory = openDirectory(&problems, check: &check) else {
      // Unprotected: nothing is read (another user's state never counts), nothing written.
      var state = replacement ?? LaunchState()
      return (body(&state, nil), problems)
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
    var opened: Result<Void, DurableFile.Failure>
    if files.state >= 0, let identity = files.stateIdentity,
      DurableFile.sameFile(StateDirectory.stateName, in: directory, as: identity)
    {
      file = DurableFile.Opened(fd: files.state, writable: files.stateWritable, bytes: nil, identity: identity)
      switch DurableFile.reread(files.state) {
      case .success(let bytes):
        file.bytes = bytes
        opened = .success(())
      case .failure(let failure): opened = .failure(failure)
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
    switch Self.decode(opened.map { file.bytes }, path: directory.path(of: StateDirectory.stateName), known: known) {
    case .success(let loaded):
      state = loaded.state ?? LaunchState()
      layout = loaded.layout
    case .failure(let problem):
      problems.append(moveAside(problem, named: StateDirectory.stateName, in: directory))
      stateRenamed = true
      state = LaunchState()
    }
    if let replacement {
      state = replacement
      layout = .none
    }
    let before = state
    let result = body(&state, directory)
    if state != before || replacement != nil || problems.contains(where: Self.needsRewrite) {
      let fd = file.writable ? file.fd : -1
      // Taken out of `file`, so the in-place write patches this image for the memo instead of a copy.
      let current = replacement == nil ? file.bytes : nil
      file.bytes = nil
      if let problem = write(state, over: layout, of: current, through: fd, in: directory, replaced: &stateRenamed) {
        problems.append(problem)
      }
    }
    return (result, problems)
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
  private static func isRefusal(_ problem: StateProblem) -> Bool {
    problem.code == .untrusted || problem.code == .wrongFileType
  }

  /// In `.processCrash` mode, an existing slotted file takes the new state in its older slot,
  /// in place; anything else (no file yet, a bare JSON file, a state too big for the slots,
  /// `.powerLoss` mode) replaces the whole file. `current`: the file's bytes as read (the
  /// in-place write's other slot); `fd`: the state file open for writing, or -1.
  private func write(
    _ state: LaunchState, over layout: StateFileFormat.Layout, of current: consuming [UInt8]?, through fd: Int32,
    in directory: StateDirectory, replaced: inout Bool
  ) -> StateProblem? {
    var written = Written(state: state)
    let problem = write(
      Self.encode(state), over: layout, of: current, through: fd, in: directory, into: &written, replaced: &replaced)
    lastWritten.withLock { $0 = problem == nil && state.rangeProblem == nil ? written : Written() }
    return problem
  }

  /// Writes `json`; on success, `written` takes the whole file as it now is (empty when
  /// unknown) and its layout. (A problem, not a `Result`: a fresh process would look up
  /// `Result`'s `Error` conformance at run time, as costly as the rest of its launch.)
  private func write(
    _ json: [UInt8], over layout: StateFileFormat.Layout, of current: consuming [UInt8]?, through fd: Int32,
    in directory: StateDirectory, into written: inout Written, replaced: inout Bool
  ) -> StateProblem? {
    var sequence: UInt64 = 1
    if case .slots(let slotSize, let newest, let previous) = layout, previous < StateFileFormat.maximumSequence {
      sequence = previous + 1
      if durability == .processCrash,
        let slot = StateFileFormat.slot(json: json, sequence: sequence, slotSize: slotSize)
      {
        let offset = (1 - newest) * slotSize
        let result =
          fd >= 0
          ? DurableFile.overwrite(fd, at: offset, with: slot, failpoints: failpoints)
          : DurableFile.overwrite(
            StateDirectory.stateName, in: directory, at: offset, with: slot, failpoints: failpoints)
        if let problem = Self.problem(result, path: directory.path(of: StateDirectory.stateName)) { return problem }
        if var image = current, image.count == 2 * slotSize {
          image.replaceSubrange(offset..<(offset + slotSize), with: slot)
          written.file = image
          written.layout = .slots(slotSize: slotSize, newest: 1 - newest, sequence: sequence)
        }
        return nil
      }
    }
    let file = StateFileFormat.file(json: json, sequence: sequence)
    let suffix = "\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
    // A new file is renamed over the old one (also when the rename then fails: the kept
    // descriptor is not trusted after that).
    replaced = true
    let result = DurableFile.replace(
      StateDirectory.stateName, in: directory, with: file.bytes, uniqueSuffix: suffix, sync: durability == .powerLoss,
      readerGroup: readerGroup, failpoints: failpoints)
    if let problem = Self.problem(result, path: directory.path(of: StateDirectory.stateName)) { return problem }
    written.file = file.bytes
    written.layout = .slots(
      slotSize: file.slotSize, newest: 0, sequence: min(sequence, StateFileFormat.maximumSequence))
    return nil
  }

  private static func problem(_ result: Result<Void, DurableFile.Failure>, path: @autoclosure () -> String)
    -> StateProblem?
  {
    guard case .failure(let failure) = result else { return nil }
    return failure.refusal ?? .writeFailed(path: path(), operation: failure.operation, errno: failure.errno)
  }

  private static func needsRewrite(_ problem: StateProblem) -> Bool {
    problem.code == .corrupt || problem.code == .futureVersion || problem.code == .unreadable
      || (isRefusal(problem) && problem.movedTo != nil)
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

  /// Byte equality by `memcmp`: `==` on two arrays compares element by element.
  private static func sameBytes(_ a: [UInt8], _ b: [UInt8]) -> Bool {
    guard a.count == b.count else { return false }
    guard !a.isEmpty else { return true }
    return a.withUnsafeBytes { a in b.withUnsafeBytes { b in memcmp(a.baseAddress!, b.baseAddress!, a.count) == 0 } }
  }

  /// The state as one line of JSON (sorted keys, so equal states are equal bytes).
  static func encode(_ state: LaunchState) -> [UInt8] { StateJSON.encode(state) }

  /// What was on disk: the state (nil: no file) and where the next in-place write can go.
  struct Loaded {
    var state: LaunchState?
    var layout: StateFileFormat.Layout
  }

  /// `known`: a file whose state is known (the last write), answered without reading it again.
  static func decode(
    _ read: Result<[UInt8]?, DurableFile.Failure>, path: @autoclosure () -> String, known: Written = Written()
  ) -> Result<Loaded, StateProblem> {
    let bytes: [UInt8]
    switch read {
    case .success(nil): return .success(Loaded(state: nil, layout: .none))
    case .success(let some?): bytes = some
    case .failure(let failure):
      return .failure(failure.refusal ?? .unreadable(path: path(), errno: failure.errno, movedTo: nil))
    }
    guard !bytes.isEmpty else { return .failure(.corrupt(path: path(), movedTo: nil, detail: "empty file")) }
    if Self.sameBytes(bytes, known.file) { return .success(Loaded(state: known.state, layout: known.layout)) }
    var json = bytes
    var layout = StateFileFormat.Layout.none
    if StateFileFormat.isSlotted(bytes) {
      switch StateFileFormat.decodeSlots(bytes) {
      case .success(let decoded):
        json = decoded.stateJSON
        layout = decoded.layout
      case .failure(let damage):
        return .failure(.corrupt(path: path(), movedTo: nil, detail: damage.detail))
      }
    }
    do throws(StateJSON.DecodeError) {
      // The whole text must be JSON before any field counts; then the version alone, so a
      // newer format is reported as such whatever else it holds.
      let document = try StateJSON.Document(json)
      let version = try document.version()
      guard version <= LaunchState.currentVersion else {
        return .failure(
          .futureVersion(path: path(), found: version, supported: LaunchState.currentVersion, movedTo: nil))
      }
      guard version >= 1 else {
        return .failure(.corrupt(path: path(), movedTo: nil, detail: "invalid version \(version)"))
      }
      let state = try document.state()
      if let outOfRange = state.rangeProblem {
        return .failure(.corrupt(path: path(), movedTo: nil, detail: "value out of range: \(outOfRange)"))
      }
      return .success(Loaded(state: state, layout: layout))
    } catch {
      return .failure(.corrupt(path: path(), movedTo: nil, detail: error.detail(byteCount: json.count)))
    }
  }
}

// `close` by a name of its own: `KeptFiles.close()` hides the global function.
private func closeDescriptor(_ fd: Int32) { _ = close(fd) }
