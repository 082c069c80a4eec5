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
  static func read(in directory: StateDirectory, _ name: String) -> Result<(bytes: [UInt8], info: stat)?, Failure> {
    let fd = openat(directory.fd, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)
    if fd < 0 {
      let code = errno
      return code == ENOENT ? .success(nil) : .failure(Failure(opening: directory.path(of: name), code))
    }
    defer { close(fd) }
    var info = stat()
    if let refusal = FileTrust.check(fd, path: directory.path(of: name), uid: directory.uid, info: &info) {
      return .failure(Failure(refusal: refusal))
    }
    return readAll(fd).map { ($0, info) }
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
  static func reread(_ fd: Int32) -> Result<[UInt8], Failure> {
    readAtOnce(fd, capacity: 2 * 4096 + 1, from: 0)
  }

  /// Opens `name` of `directory` read-write (read-only when writing is refused) and reads it
  /// whole. With `check`, what the trust rule refuses (`FileTrust`) is refused, and a file more
  /// open than `mode` (an older version made it 0644) is narrowed to it. Without, a FIFO still
  /// never blocks (`O_NONBLOCK`: its read fails) and no link is followed.
  static func openForUpdate(in directory: StateDirectory, _ name: String, mode: mode_t, check: Bool = true) -> (
    Opened, Result<Void, Failure>
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
      return (none, code == ENOENT ? .success(()) : .failure(Failure(opening: directory.path(of: name), code)))
    }
    var identity: FileIdentity?
    if check {
      var info = stat()
      if let refusal = FileTrust.check(fd, path: directory.path(of: name), uid: directory.uid, info: &info) {
        _ = closeDescriptor(fd)
        return (none, .failure(Failure(refusal: refusal)))
      }
      if writable, info.st_mode & 0o777 & ~mode != 0 { fchmod(fd, info.st_mode & mode & 0o777) }
      identity = FileIdentity(info)
    }
    switch readState(fd) {
    case .success(let bytes):
      return (Opened(fd: fd, writable: writable, bytes: bytes, identity: identity), .success(()))
    case .failure(let failure):
      return (Opened(fd: fd, writable: writable, bytes: nil, identity: nil), .failure(failure))
    }
  }

  /// The state file's contents: one read of a buffer a byte larger than the usual file (two
  /// 4 KiB slots), which returns short at its end, so no `fstat` is spent on the size; a
  /// larger file (grown slots, or not a state file) is read on to its end.
  private static func readState(_ fd: Int32) -> Result<[UInt8], Failure> {
    readAtOnce(fd, capacity: 2 * 4096 + 1)
  }

  /// `fd`'s contents from one `read` of `capacity` bytes when it returns short (the end was
  /// reached); a read that fills the buffer is followed by `readAll` to the end. With `offset`,
  /// read from there with `pread`, whatever the descriptor's own offset.
  private static func readAtOnce(_ fd: Int32, capacity: Int, from offset: Int? = nil) -> Result<[UInt8], Failure> {
    var code: Int32 = 0
    let first = [UInt8](unsafeUninitializedCapacity: capacity) { buffer, count in
      count = 0
      var read = -1
      repeat {
        read = readDescriptor(fd, buffer.baseAddress!, buffer.count, at: offset)
      } while read < 0 && errno == EINTR
      if read < 0 { code = errno } else { count = read }
    }
    if code != 0 { return .failure(Failure(operation: "read", errno: code)) }
    guard first.count == capacity else { return .success(first) }
    return readAll(fd, from: offset.map { $0 + first.count }).map { first + $0 }
  }

  /// The contents of an open file. A regular file is read in reads of the size `fstat` gave
  /// (one for the state file: its size changes only by a rename, which makes a new inode, so
  /// no extra read is spent to find the end); anything else until a read returns 0. With
  /// `offset`, from there with `pread`.
  private static func readAll(_ fd: Int32, from offset: Int? = nil) -> Result<[UInt8], Failure> {
    var info = stat()
    let size: Int? =
      fstat(fd, &info) == 0 && info.st_mode & S_IFMT == S_IFREG && info.st_size > 0 ? Int(info.st_size) : nil
    var bytes: [UInt8] = []
    var capacity = size ?? 4096
    while true {
      var code: Int32 = 0
      var atEnd = false
      // Uninitialized: nothing is zeroed only to be overwritten by the read.
      let position = offset.map { $0 + bytes.count }
      let chunk = [UInt8](unsafeUninitializedCapacity: capacity) { buffer, count in
        count = 0
        while count < buffer.count {
          let read = readDescriptor(
            fd, buffer.baseAddress! + count, buffer.count - count, at: position.map { $0 + count })
          if read < 0 {
            if errno == EINTR { continue }
            code = errno
            return
          }
          if read == 0 {
            atEnd = true
            return
          }
          count += read
        }
      }
      if code != 0 { return .failure(Failure(operation: "read", errno: code)) }
      if bytes.isEmpty { bytes = chunk } else { bytes += chunk }
      if atEnd || bytes.count == size { return .success(bytes) }
      capacity = max(4096, bytes.count)
    }
  }

  /// A small procfs file (`/proc/<pid>/stat`, `boot_id`) in one `read`: procfs generates such a
  /// file whole on the first read when the buffer holds it, so no second read looks for the end
  /// (a file that fills the buffer is read on to its end). Nil when it cannot be read.
  static func readSmallProcFile(_ path: String) -> [UInt8]? {
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    guard case .success(let bytes) = readAtOnce(fd, capacity: 4096) else { return nil }
    return bytes
  }

  /// Atomically replaces `name` of `directory` with `bytes`: a new temporary file (`O_EXCL`,
  /// `O_NOFOLLOW`, private: `mode`, given to `readerGroup` when set), renamed over it. With
  /// `sync`, durably: the temp file is fsynced before the rename and the directory after it.
  static func replace(
    _ name: String, in directory: StateDirectory, with bytes: [UInt8], uniqueSuffix: String, sync: Bool,
    readerGroup: UInt32?, failpoints: FailpointRegistry
  ) -> Result<Void, Failure> {
    let temporary = "\(name).tmp-\(uniqueSuffix)"
    func fail(_ operation: String, _ code: Int32, closing fd: Int32 = -1) -> Result<Void, Failure> {
      if fd >= 0 { close(fd) }
      unlinkat(directory.fd, temporary, 0)
      return .failure(Failure(operation: operation, errno: code))
    }
    let fd = openat(directory.fd, temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
    guard fd >= 0 else {
      let code = errno
      return .failure(Failure(opening: directory.path(of: temporary), code))
    }
    if let group = readerGroup { FileTrust.shareWithGroup(fd, group, mode: 0o640) }
    if case .fail(let code) = failpoints.evaluate("store.write") { return fail("write", code, closing: fd) }
    if let code = writeAll(fd, bytes, at: 0) { return fail("write", code, closing: fd) }
    if sync {
      if case .fail(let code) = failpoints.evaluate("store.fsync") { return fail("fsync", code, closing: fd) }
      guard fsync(fd) == 0 else { return fail("fsync", errno, closing: fd) }
    }
    guard close(fd) == 0 else { return fail("close", errno) }
    if case .fail(let code) = failpoints.evaluate("store.rename") { return fail("rename", code) }
    guard renameat(directory.fd, temporary, directory.fd, name) == 0 else { return fail("rename", errno) }
    guard sync else { return .success(()) }
    // The rename is durable only once the directory entry is.
    if case .fail(let code) = failpoints.evaluate("store.fsync") {
      return .failure(Failure(operation: "fsync directory", errno: code))
    }
    let readable = StateDirectory.readable(directory.fd)
    guard readable >= 0 else { return .failure(Failure(operation: "open directory", errno: errno)) }
    defer { close(readable) }
    guard fsync(readable) == 0 else { return .failure(Failure(operation: "fsync directory", errno: errno)) }
    return .success(())
  }

  /// Writes `bytes` at `offset` of the existing file `name` of `directory` in one `pwrite`
  /// (no fsync); the file is refused as `openForUpdate` refuses it.
  static func overwrite(
    _ name: String, in directory: StateDirectory, at offset: Int, with bytes: [UInt8], failpoints: FailpointRegistry
  ) -> Result<Void, Failure> {
    let fd = openat(directory.fd, name, O_WRONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)
    guard fd >= 0 else {
      let code = errno
      return .failure(Failure(opening: directory.path(of: name), code))
    }
    defer { close(fd) }
    var info = stat()
    if let refusal = FileTrust.check(fd, path: directory.path(of: name), uid: directory.uid, info: &info) {
      return .failure(Failure(refusal: refusal))
    }
    return overwrite(fd, at: offset, with: bytes, failpoints: failpoints)
  }

  /// Writes `bytes` at `offset` of the file open as `fd` (writable) in one `pwrite` (no fsync).
  static func overwrite(_ fd: Int32, at offset: Int, with bytes: [UInt8], failpoints: FailpointRegistry)
    -> Result<Void, Failure>
  {
    if case .fail(let code) = failpoints.evaluate("store.write") {
      return .failure(Failure(operation: "write", errno: code))
    }
    if let code = writeAll(fd, bytes, at: offset) { return .failure(Failure(operation: "write", errno: code)) }
    return .success(())
  }

  /// `pwrite` until done; the errno of a failure.
  private static func writeAll(_ fd: Int32, _ bytes: [UInt8], at offset: Int) -> Int32? {
    var written = 0
    while written < bytes.count {
      let count = bytes.withUnsafeBytes {
        pwrite(fd, $0.baseAddress! + written, $0.count - written, off_t(offset + written))
      }
      if count < 0 {
        if errno == EINTR { continue }
        return errno
      }
      written += count
    }
    return nil
  }
}

// The C library's `close` and `read` by names of their own: `Opened.close()` and the locals
// named `read` hide the global functions, and a `Glibc.` prefix would not build against musl.
private func closeDescriptor(_ fd: Int32) -> Int32 { close(fd) }
private func readDescriptor(_ fd: Int32, _ buffer: UnsafeMutableRawPointer, _ count: Int, at offset: Int?) -> Int {
  guard let offset else { return read(fd, buffer, count) }
  return pread(fd, buffer, count, off_t(offset))
}
