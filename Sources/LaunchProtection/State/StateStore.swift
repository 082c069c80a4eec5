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
  /// The directory the app chose; created on first write.
  public let directory: String
  /// The state file inside `directory`.
  public var statePath: String { paths.state }
  /// The lock file inside `directory`.
  public var lockPath: String { paths.lock }
  /// Joined once: every update uses both.
  private let paths: (state: String, lock: String)

  /// What an update survives once it returned (see `Durability`).
  public let durability: Durability
  private let lockTimeout: Duration
  private let failpoints: FailpointRegistry
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

  /// Creates a store for `directory`.
  public init(
    directory: String, durability: Durability = .processCrash, lockTimeout: Duration = .seconds(2),
    failpoints: FailpointRegistry = .shared
  ) {
    self.directory = directory
    self.paths = (directory + "/launch-state.json", directory + "/launch-state.lock")
    self.durability = durability
    self.lockTimeout = lockTimeout
    self.failpoints = failpoints
  }

  /// What `read()` could not accept.
  public struct ReadError: Error, CustomStringConvertible {
    /// The problem, as an update would report it (without moving the file).
    public var problem: StateProblem
    public var description: String { problem.description }
  }

  /// Reads the state without locking or moving anything (for inspection, e.g. by the harness).
  /// Returns nil when there is no state file yet.
  public func read() throws(ReadError) -> LaunchState? {
    switch Self.decode(DurableFile.read(statePath), path: statePath) {
    case .success(let loaded): return loaded.state
    case .failure(let problem): throw ReadError(problem: problem)
    }
  }

  /// Replaces the state file with `state` as a new file, under the lock (for tools and tests
  /// that set up a state; the launch path uses `update`). Returns the problem, if any.
  public func overwrite(_ state: LaunchState) -> StateProblem? {
    let (_, problems) = update(replacingWith: state) { _ in }
    return problems.first
  }

  /// Runs `body` on the current state under the lock and persists the result if it changed.
  ///
  /// A state that cannot be read is moved aside and `body` sees an empty state.
  func update<T>(_ body: (inout LaunchState) -> T) -> (result: T, problems: [StateProblem]) {
    update(replacingWith: nil, body)
  }

  private func update<T>(replacingWith replacement: LaunchState?, _ body: (inout LaunchState) -> T) -> (
    result: T, problems: [StateProblem]
  ) {
    var problems: [StateProblem] = []
    // The lock file is opened first: the directory is created only when that fails (the first
    // launch), not tried on every update.
    let lock: FileLock?
    switch FileLock.acquire(path: lockPath, timeout: lockTimeout, onOpenFailure: { createDirectory(&problems) }) {
    case .success(let taken): lock = taken
    case .failure(let problem):
      lock = nil
      problems.append(problem)
    }
    defer { lock?.release() }

    // Opened once: read here, and an in-place write goes through the same descriptor.
    var (file, opened) = DurableFile.openForUpdate(statePath)
    defer { file.close() }
    var state: LaunchState
    var layout = StateFileFormat.Layout.none
    switch Self.decode(opened.map { file.bytes }, path: statePath, known: lastWritten.withLock { $0 }) {
    case .success(let loaded):
      state = loaded.state ?? LaunchState()
      layout = loaded.layout
    case .failure(let problem):
      problems.append(moveAside(problem))
      state = LaunchState()
    }
    if let replacement {
      state = replacement
      layout = .none
    }
    let before = state
    let result = body(&state)
    if state != before || replacement != nil || problems.contains(where: Self.needsRewrite) {
      let fd = file.writable ? file.fd : -1
      // Taken out of `file`, so the in-place write patches this image for the memo instead of a copy.
      let current = replacement == nil ? file.bytes : nil
      file.bytes = nil
      if let problem = write(state, over: layout, of: current, through: fd) {
        problems.append(problem)
      }
    }
    return (result, problems)
  }

  /// In `.processCrash` mode, an existing slotted file takes the new state in its older slot,
  /// in place; anything else (no file yet, a bare JSON file, a state too big for the slots,
  /// `.powerLoss` mode) replaces the whole file. `current`: the file's bytes as read (the
  /// in-place write's other slot); `fd`: the state file open for writing, or -1.
  private func write(
    _ state: LaunchState, over layout: StateFileFormat.Layout, of current: consuming [UInt8]?, through fd: Int32
  ) -> StateProblem? {
    var written = Written(state: state)
    let problem = write(Self.encode(state), over: layout, of: current, through: fd, into: &written)
    lastWritten.withLock { $0 = problem == nil && state.rangeProblem == nil ? written : Written() }
    return problem
  }

  /// Writes `json`; on success, `written` takes the whole file as it now is (empty when
  /// unknown) and its layout. (A problem, not a `Result`: a fresh process would look up
  /// `Result`'s `Error` conformance at run time, as costly as the rest of its launch.)
  private func write(
    _ json: [UInt8], over layout: StateFileFormat.Layout, of current: consuming [UInt8]?, through fd: Int32,
    into written: inout Written
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
          : DurableFile.overwrite(statePath, at: offset, with: slot, failpoints: failpoints)
        if let problem = Self.problem(result, path: statePath) { return problem }
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
    let result = DurableFile.replace(
      statePath, directory: directory, with: file.bytes, uniqueSuffix: suffix, sync: durability == .powerLoss,
      failpoints: failpoints)
    if let problem = Self.problem(result, path: statePath) { return problem }
    written.file = file.bytes
    written.layout = .slots(
      slotSize: file.slotSize, newest: 0, sequence: min(sequence, StateFileFormat.maximumSequence))
    return nil
  }

  private static func problem(_ result: Result<Void, DurableFile.Failure>, path: String) -> StateProblem? {
    guard case .failure(let failure) = result else { return nil }
    return .writeFailed(path: path, operation: failure.operation, errno: failure.errno)
  }

  private static func needsRewrite(_ problem: StateProblem) -> Bool {
    switch problem {
    case .corrupt, .futureVersion, .unreadable: true
    case .writeFailed, .lockUnavailable: false
    }
  }

  /// Renames the unusable file next to itself, so nothing is lost and the next write starts clean.
  private func moveAside(_ problem: StateProblem) -> StateProblem {
    let stamp = Int(Date().timeIntervalSince1970 * 1000)
    let label: String
    switch problem {
    case .corrupt: label = "corrupt"
    case .futureVersion(_, let found, _, _): label = "v\(found)"
    default: label = "unreadable"
    }
    let target = "\(statePath).\(label)-\(stamp)-\(getpid())"
    let movedTo = rename(statePath, target) == 0 ? target : nil
    switch problem {
    case .corrupt(let path, _, let detail): return .corrupt(path: path, movedTo: movedTo, detail: detail)
    case .futureVersion(let path, let found, let supported, _):
      return .futureVersion(path: path, found: found, supported: supported, movedTo: movedTo)
    case .unreadable(let path, let code, _): return .unreadable(path: path, errno: code, movedTo: movedTo)
    default: return problem
    }
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
    _ read: Result<[UInt8]?, DurableFile.Failure>, path: String, known: Written = Written()
  ) -> Result<Loaded, StateProblem> {
    let bytes: [UInt8]
    switch read {
    case .success(nil): return .success(Loaded(state: nil, layout: .none))
    case .success(let some?): bytes = some
    case .failure(let failure): return .failure(.unreadable(path: path, errno: failure.errno, movedTo: nil))
    }
    guard !bytes.isEmpty else { return .failure(.corrupt(path: path, movedTo: nil, detail: "empty file")) }
    if Self.sameBytes(bytes, known.file) { return .success(Loaded(state: known.state, layout: known.layout)) }
    var json = bytes
    var layout = StateFileFormat.Layout.none
    if StateFileFormat.isSlotted(bytes) {
      switch StateFileFormat.decodeSlots(bytes) {
      case .success(let decoded):
        json = decoded.stateJSON
        layout = decoded.layout
      case .failure(let damage):
        return .failure(.corrupt(path: path, movedTo: nil, detail: damage.detail))
      }
    }
    do throws(StateJSON.DecodeError) {
      // The whole text must be JSON before any field counts; then the version alone, so a
      // newer format is reported as such whatever else it holds.
      let document = try StateJSON.Document(json)
      let version = try document.version()
      guard version <= LaunchState.currentVersion else {
        return .failure(.futureVersion(path: path, found: version, supported: LaunchState.currentVersion, movedTo: nil))
      }
      guard version >= 1 else {
        return .failure(.corrupt(path: path, movedTo: nil, detail: "invalid version \(version)"))
      }
      let state = try document.state()
      if let outOfRange = state.rangeProblem {
        return .failure(.corrupt(path: path, movedTo: nil, detail: "value out of range: \(outOfRange)"))
      }
      return .success(Loaded(state: state, layout: layout))
    } catch {
      return .failure(.corrupt(path: path, movedTo: nil, detail: error.detail(byteCount: json.count)))
    }
  }
}
