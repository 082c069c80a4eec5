import Failpoints

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// Writing: a whole file replaced by a rename, or a range rewritten in place.
extension DurableFile {
  /// Atomically replaces `name` of `directory` with `bytes`: a new temporary file (`O_EXCL`,
  /// `O_NOFOLLOW`, private: `mode`, given to `readerGroup` when set), renamed over it. With
  /// `sync`, durably: the temp file is fsynced before the rename and the directory after it.
  /// Nil when done, else the failure (not a `Result`: see `StateStore.decode`).
  static func replace(
    _ name: String, in directory: StateDirectory, with bytes: [UInt8], uniqueSuffix: String, sync: Bool,
    readerGroup: UInt32?, failpoints: FailpointRegistry
  ) -> Failure? {
    let temporary = "\(name).tmp-\(uniqueSuffix)"
    func fail(_ operation: String, _ code: Int32, closing fd: Int32 = -1) -> Failure? {
      if fd >= 0 { close(fd) }
      unlinkat(directory.fd, temporary, 0)
      return Failure(operation: operation, errno: code)
    }
    let fd = openat(directory.fd, temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
    guard fd >= 0 else {
      let code = errno
      return Failure(opening: directory.path(of: temporary), code)
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
    guard sync else { return nil }
    // The rename is durable only once the directory entry is.
    if case .fail(let code) = failpoints.evaluate("store.fsync") {
      return Failure(operation: "fsync directory", errno: code)
    }
    let readable = StateDirectory.readable(directory.fd)
    guard readable >= 0 else { return Failure(operation: "open directory", errno: errno) }
    defer { close(readable) }
    guard fsync(readable) == 0 else { return Failure(operation: "fsync directory", errno: errno) }
    return nil
  }

  /// Writes `bytes` at `offset` of the existing file `name` of `directory` in one `pwrite`
  /// (no fsync); the file is refused as `openForUpdate` refuses it.
  static func overwrite(
    _ name: String, in directory: StateDirectory, at offset: Int, with bytes: [UInt8], failpoints: FailpointRegistry
  ) -> Failure? {
    let fd = openat(directory.fd, name, O_WRONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)
    guard fd >= 0 else {
      let code = errno
      return Failure(opening: directory.path(of: name), code)
    }
    defer { close(fd) }
    var info = stat()
    if let refusal = FileTrust.check(fd, path: directory.path(of: name), uid: directory.uid, info: &info) {
      return Failure(refusal: refusal)
    }
    return overwrite(fd, at: offset, with: bytes, failpoints: failpoints)
  }

  /// Writes `bytes` at `offset` of the file open as `fd` (writable) in one `pwrite` (no fsync).
  static func overwrite(_ fd: Int32, at offset: Int, with bytes: [UInt8], failpoints: FailpointRegistry)
    -> Failure?
  {
    if case .fail(let code) = failpoints.evaluate("store.write") {
      return Failure(operation: "write", errno: code)
    }
    if let code = writeAll(fd, bytes, at: offset) { return Failure(operation: "write", errno: code) }
    return nil
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
