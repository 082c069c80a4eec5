import Failpoints

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// The two ways the store puts bytes on disk, both crash-consistent against process death:
/// replacing the whole file (temp file + rename, with fsyncs when asked) and rewriting a range
/// of it in place (one `pwrite`, which the kernel applies whole or not at all when the process
/// dies; a power cut may tear it, which the two checksummed slots of `StateFileFormat` absorb).
///
/// The store's I/O failpoints make each step fail with an errno: `store.write` (before the
/// bytes are written), `store.fsync` (before each fsync; only `sync` writes have one) and
/// `store.rename` (before the rename).
enum DurableFile {
  struct Failure: Error {
    var operation: String
    var errno: Int32
    /// Set when the file was refused by the trust rule (`FileTrust`) rather than failing.
    var refusal: StateProblem? = nil

    init(operation: String, errno: Int32) {
      self.operation = operation
      self.errno = errno
    }

    init(refusal: StateProblem) {
      self.operation = "open"
      self.errno = 0
      self.refusal = refusal
    }

    /// A failed `openat`: `ELOOP` is a symlink (`O_NOFOLLOW`), `EISDIR` a directory, both refused.
    init(opening path: String, _ code: Int32) {
      switch code {
      case ELOOP:
        self.init(
          refusal: StateProblem(
            .wrongFileType, path: path, detail: "a symlink stands where a file should be; not followed"))
      case EISDIR:
        self.init(
          refusal: StateProblem(.wrongFileType, path: path, detail: "a directory stands where a file should be"))
      case ENXIO:
        // What open says of a socket, and of a FIFO opened for writing with O_NONBLOCK.
        self.init(
          refusal: StateProblem(.wrongFileType, path: path, detail: "a socket or FIFO stands where a file should be"))
      default:
        self.init(operation: "open", errno: code)
      }
    }
  }

  /// Reads the whole file `name` of `directory` with its `fstat`; nil when it does not exist.
  /// A symlink is not followed, a FIFO not waited on, and a file that is not a regular file
  /// of a trusted owner is not read (`Failure.refusal`).
  static func read(in directory: StateDirectory, _ name: String) throws(Failure) -> (bytes: [UInt8], info: stat)? {
    let fd = openat(directory.fd, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)
    if fd < 0 {
      let code = errno
      if code == ENOENT { return nil }
      throw Failure(opening: directory.path(of: name), code)
    }
    defer { close(fd) }
    var info = stat()
    if let refusal = FileTrust.check(fd, path: directory.path(of: name), uid: directory.uid, info: &info) {
      throw Failure(refusal: refusal)
    }
    return (try readAll(fd), info)
  }

  /// The state file opened once for an update: read, and written in place through the same
  /// descriptor (`overwrite(_:at:with:failpoints:)`); close it when done.
  struct Opened {
    /// The descriptor, or -1 when there is no file.
    var fd: Int32
    /// Whether `fd` was opened for writing too (a file the process may only read is read,
    /// and its in-place write fails as it did, when it opens the file for writing).
    var writable: Bool
    /// The contents; nil when there is no file.
    var bytes: [UInt8]?
    /// The file's identity (device and inode) when its `fstat` was taken, else nil: only then
    /// may the store keep the descriptor for its next update (`sameFile`).
    var identity: FileIdentity?

    func close() { if fd >= 0 { _ = closeDescriptor(fd) } }
  }

  /// A file's device and inode, as `stat` gives them.
  struct FileIdentity: Sendable, Equatable {
    var device: UInt64
    var inode: UInt64

    init(_ info: stat) {
      device = UInt64(info.st_dev)
      inode = UInt64(info.st_ino)
    }
  }

  /// Whether `name` in `directory` is still the regular file `identity` (not renamed over, not
  /// removed): one `fstatat` that follows no link, in place of an open, an `fstat` and a close.
  static func sameFile(_ name: String, in directory: StateDirectory, as identity: FileIdentity) -> Bool {
    var info = stat()
    guard fstatat(directory.fd, name, &info, AT_SYMLINK_NOFOLLOW) == 0 else { return false }
    return info.st_mode & S_IFMT == S_IFREG && FileIdentity(info) == identity
  }

  /// The whole contents of the open file `fd` from its start, with `pread` (a kept descriptor's
  /// offset is wherever the last read left it), read as `openForUpdate` reads it.
  static func reread(_ fd: Int32) throws(Failure) -> [UInt8] {
    try readAtOnce(fd, capacity: 2 * 4096 + 1, from: 0)
  }

  /// Opens `name` of `directory` read-write (read-only when writing is refused) and reads it
  /// whole. With `check`, what the trust rule refuses (`FileTrust`) is refused, and a file more
  /// open than `mode` (an older version made it 0644) is narrowed to it. Without, a FIFO still
  /// never blocks (`O_NONBLOCK`: its read fails) and no link is followed.
  static func openForUpdate(in directory: StateDirectory, _ name: String, mode: mode_t, check: Bool = true) -> (
    Opened, Failure?
  ) {
    var writable = true
    let flags = O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK
    var fd = openat(directory.fd, name, O_RDWR | flags)
    if fd < 0, errno == EACCES || errno == EPERM || errno == EROFS || errno == ETXTBSY {
      writable = false
      fd = openat(directory.fd, name, O_RDONLY | flags)
    }
    let none = Opened(fd: -1, writable: false, bytes: nil, identity: nil)
    if fd < 0 {
      let code = errno
      return (none, code == ENOENT ? nil : Failure(opening: directory.path(of: name), code))
    }
    var identity: FileIdentity?
    if check {
      var info = stat()
      if let refusal = FileTrust.check(fd, path: directory.path(of: name), uid: directory.uid, info: &info) {
        _ = closeDescriptor(fd)
        return (none, Failure(refusal: refusal))
      }
      if writable, info.st_mode & 0o777 & ~mode != 0 { fchmod(fd, info.st_mode & mode & 0o777) }
      identity = FileIdentity(info)
    }
    do throws(Failure) {
      let bytes = try readState(fd)
      return (Opened(fd: fd, writable: writable, bytes: bytes, identity: identity), nil)
    } catch {
      return (Opened(fd: fd, writable: writable, bytes: nil, identity: nil), error)
    }
  }
}

// The C library's `close` by a name of its own: `Opened.close()` hides the global function,
// and a `Glibc.` prefix would not build against musl.
private func closeDescriptor(_ fd: Int32) -> Int32 { close(fd) }
