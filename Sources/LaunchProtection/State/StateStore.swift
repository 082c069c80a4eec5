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
  let lockTimeout: Duration
  let failpoints: FailpointRegistry
  /// A group that may read the files (`LaunchOrganizer.Configuration.readableByGroup`).
  let readerGroup: UInt32?
  /// The uid whose state this is: nil, this process's effective uid (a tool inspecting
  /// another user's state names it).
  let owner: uid_t?
  /// The directory, opened and checked once by the first update (the launch's), and kept:
  /// every later update of this store opens its files relative to it.
  let opened = Mutex(Opening.notYet)
  /// The lock's and the state file's descriptors, left by an update for the next one (see
  /// `KeptFiles`).
  let kept = Mutex(KeptFiles())
  /// Whether updates keep them: during the launch only (`updateEndingLaunch`), so that a
  /// launched app holds no descriptor on the state files.
  let keepsFiles = Atomic<Bool>(true)
  /// The file this store last wrote, with its state: the next update of the same process
  /// (`launchingFinished` after `finishLaunching`) usually reads those bytes back and need
  /// neither check their slots nor decode them. A memo of a pure function: only a file equal
  /// to this one, byte for byte, is answered from it (another process's write makes other
  /// bytes), and only a state inside the documented range is kept, so the answer is what
  /// reading would give, checks included.
  let lastWritten = Mutex(Written())

  /// A whole state file, its state and its layout (empty file: none). A struct, not an
  /// optional tuple, whose generic metadata a fresh process would build at run time.
  struct Written: Sendable {
    var file: [UInt8] = []
    var state = LaunchState()
    var layout = StateFileFormat.Layout.none
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
  var fileMode: mode_t { readerGroup == nil ? 0o600 : 0o640 }

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
    do throws(StateProblem) {
      let read = { () throws(DurableFile.Failure) in try DurableFile.read(in: opened, StateDirectory.stateName)?.bytes }
      return try Self.decode(read, path: opened.path(of: StateDirectory.stateName)).state
    } catch {
      throw ReadError(problem: error)
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
}
