import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// What the library says about a shared state directory, and how often.
///
/// - The move to `private-<uid>`: once per process and configured directory, at notice
///   (``LaunchProtectionEvent/Kind-swift.struct/privateStateDirectory``). Every opening of the
///   directory notes it (crash capture's too); the organizer's launch takes the note.
/// - A state file at the top of the shared directory, ignored: once per file. Its identity
///   (device, inode, change time, owner, size) is recorded in the private directory
///   (`ignored-shared-state`) when the organizer's launch has reported it; a later start that
///   finds the same file says nothing, and a file rewritten, replaced or given to someone else
///   is said again. Recorded only by the organizer, so that crash capture, which opens the
///   directory first and says nothing, does not silence it.
enum StateDirectoryNotices {
  /// The move to a private subdirectory, as the organizer reports it.
  struct PrivateDirectory: Sendable, Equatable {
    /// The private subdirectory the state is kept in.
    var directory: String
    /// Why: the shared directory, its owner and mode.
    var reason: String
  }

  /// A top state file reported and not yet recorded.
  private struct TopFile {
    var privateDirectory: String
    var uid: uid_t
    var identity: String
  }

  private struct Entry {
    var move: PrivateDirectory?
    var moveSaid = false
    var top: TopFile?
  }

  /// By configured path (as the app gave it to the store).
  private static let entries = Mutex<[String: Entry]>([:])

  /// The name of the record of the last top state file reported, in the private directory.
  static let reportedName = "ignored-shared-state"

  /// Notes that `configured` keeps its state in `directory` for `reason` (said once).
  static func noteMove(configured: String, directory: String, reason: String) {
    entries.withLock { entries in
      if entries[configured, default: Entry()].move == nil {
        entries[configured, default: Entry()].move = PrivateDirectory(directory: directory, reason: reason)
      }
    }
  }

  /// Whether the top state file `top` is to be reported: it is not the one recorded in the
  /// private directory `fd` (`path`, whose files must be `uid`'s or root's). When it is, it is
  /// noted for `configured`'s organizer to record once it said it.
  static func isNew(_ top: stat, configured: String, privateDirectory fd: Int32, path: String, uid: uid_t) -> Bool {
    let identity =
      "\(top.st_dev) \(top.st_ino) \(top.st_ctim.tv_sec) \(top.st_ctim.tv_nsec) \(top.st_uid) \(top.st_size)\n"
    let file = openat(fd, reportedName, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
    if file >= 0 {
      defer { close(file) }
      var info = stat()
      var buffer = [UInt8](repeating: 0, count: 128)
      if FileTrust.check(file, path: reportedName, uid: uid, info: &info) == nil {
        let count = read(file, &buffer, buffer.count)
        if count > 0, buffer[..<count].elementsEqual(identity.utf8) { return false }
      }
    }
    entries.withLock {
      $0[configured, default: Entry()].top = TopFile(privateDirectory: path, uid: uid, identity: identity)
    }
    return true
  }

  /// For the organizer, once it reported the first update's problems: records the top state
  /// file it said (if any), and returns the move to a private subdirectory the first time this
  /// process asks (nil afterwards, and when the directory is not shared).
  static func take(configured: String) -> PrivateDirectory? {
    let (move, top) = entries.withLock { entries -> (PrivateDirectory?, TopFile?) in
      guard var entry = entries[configured] else { return (nil, nil) }
      let move = entry.moveSaid ? nil : entry.move
      let top = entry.top
      entry.moveSaid = entry.moveSaid || move != nil
      entry.top = nil
      entries[configured] = entry
      return (move, top)
    }
    if let top { record(top) }
    return move
  }

  /// Writes `top`'s identity in its private directory, checked again as it is opened (this
  /// user's, no one else's to write); the record must be this user's regular file.
  private static func record(_ top: TopFile) {
    let directory = openRecordDirectory(top.privateDirectory)
    guard directory >= 0 else { return }
    defer { close(directory) }
    var held = stat()
    guard fstat(directory, &held) == 0, held.st_uid == top.uid, !FileTrust.othersCanWrite(held.st_mode) else { return }
    let file = openat(directory, reportedName, O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0o600)
    guard file >= 0 else { return }
    defer { close(file) }
    var info = stat()
    guard FileTrust.check(file, path: reportedName, uid: top.uid, info: &info) == nil else { return }
    let bytes = Array(top.identity.utf8)
    if ftruncate(file, 0) == 0 { _ = pwrite(file, bytes, bytes.count, 0) }
  }
}

// `open` by a name of its own: a `Glibc.` prefix would not build against musl.
private func openRecordDirectory(_ path: String) -> Int32 {
  open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
}
