import Failpoints
import Foundation

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
  }

  /// Reads the whole file; nil when it does not exist.
  static func read(_ path: String) -> Result<[UInt8]?, Failure> {
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    if fd < 0 {
      return errno == ENOENT ? .success(nil) : .failure(Failure(operation: "open", errno: errno))
    }
    defer { close(fd) }
    var info = stat()
    // Sized from fstat so the usual small file is one read; the loop still follows a file that grew.
    let expected = fstat(fd, &info) == 0 ? max(Int(info.st_size), 0) : 0
    var bytes = [UInt8](repeating: 0, count: max(expected + 1, 4096))
    var filled = 0
    while true {
      if filled == bytes.count { bytes += [UInt8](repeating: 0, count: bytes.count) }
      let count = bytes.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress! + filled, $0.count - filled) }
      if count < 0 {
        if errno == EINTR { continue }
        return .failure(Failure(operation: "read", errno: errno))
      }
      if count == 0 { return .success(Array(bytes[0..<filled])) }
      filled += count
    }
  }

  /// Atomically replaces `path` with `bytes`. With `sync`, durably: the temp file is fsynced
  /// before the rename and the directory after it.
  static func replace(
    _ path: String, directory: String, with bytes: [UInt8], uniqueSuffix: String, sync: Bool,
    failpoints: FailpointRegistry
  ) -> Result<Void, Failure> {
    let temporary = "\(path).tmp-\(uniqueSuffix)"
    func fail(_ operation: String, _ code: Int32, closing fd: Int32 = -1) -> Result<Void, Failure> {
      if fd >= 0 { close(fd) }
      unlink(temporary)
      return .failure(Failure(operation: operation, errno: code))
    }
    let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
    guard fd >= 0 else { return fail("open", errno) }
    if case .fail(let code) = failpoints.evaluate("store.write") { return fail("write", code, closing: fd) }
    if let code = writeAll(fd, bytes, at: 0) { return fail("write", code, closing: fd) }
    if sync {
      if case .fail(let code) = failpoints.evaluate("store.fsync") { return fail("fsync", code, closing: fd) }
      guard fsync(fd) == 0 else { return fail("fsync", errno, closing: fd) }
    }
    guard close(fd) == 0 else { return fail("close", errno) }
    if case .fail(let code) = failpoints.evaluate("store.rename") { return fail("rename", code) }
    guard rename(temporary, path) == 0 else { return fail("rename", errno) }
    guard sync else { return .success(()) }
    // The rename is durable only once the directory entry is.
    if case .fail(let code) = failpoints.evaluate("store.fsync") {
      return .failure(Failure(operation: "fsync directory", errno: code))
    }
    let directoryFD = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    guard directoryFD >= 0 else { return .failure(Failure(operation: "open directory", errno: errno)) }
    defer { close(directoryFD) }
    guard fsync(directoryFD) == 0 else { return .failure(Failure(operation: "fsync directory", errno: errno)) }
    return .success(())
  }

  /// Writes `bytes` at `offset` of the existing file `path` in one `pwrite` (no fsync).
  static func overwrite(_ path: String, at offset: Int, with bytes: [UInt8], failpoints: FailpointRegistry)
    -> Result<Void, Failure>
  {
    let fd = open(path, O_WRONLY | O_CLOEXEC)
    guard fd >= 0 else { return .failure(Failure(operation: "open", errno: errno)) }
    defer { close(fd) }
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
