import Failpoints
import Foundation

/// Crash-safe file replacement: temp file + fsync + rename + fsync of the directory.
///
/// A process killed at any instruction leaves either the old file or the new one, never a
/// torn one; a stray temp file is harmless and swept on the next successful write.
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
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 4096)
    while true {
      let count = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
      if count < 0 {
        if errno == EINTR { continue }
        return .failure(Failure(operation: "read", errno: errno))
      }
      if count == 0 { return .success(bytes) }
      bytes.append(contentsOf: chunk[0..<count])
    }
  }

  /// Atomically replaces `path` with `bytes`, durably. The store's I/O failpoints
  /// (`store.write`, `store.fsync`, `store.rename`) can make each step fail with an errno.
  static func replace(
    _ path: String, directory: String, with bytes: [UInt8], uniqueSuffix: String, failpoints: FailpointRegistry
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
    var written = 0
    while written < bytes.count {
      let count = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + written, $0.count - written) }
      if count < 0 {
        if errno == EINTR { continue }
        return fail("write", errno, closing: fd)
      }
      written += count
    }
    if case .fail(let code) = failpoints.evaluate("store.fsync") { return fail("fsync", code, closing: fd) }
    guard fsync(fd) == 0 else { return fail("fsync", errno, closing: fd) }
    guard close(fd) == 0 else { return fail("close", errno) }
    if case .fail(let code) = failpoints.evaluate("store.rename") { return fail("rename", code) }
    guard rename(temporary, path) == 0 else { return fail("rename", errno) }
    // The rename is durable only once the directory entry is.
    let directoryFD = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    guard directoryFD >= 0 else { return .failure(Failure(operation: "open directory", errno: errno)) }
    defer { close(directoryFD) }
    guard fsync(directoryFD) == 0 else { return .failure(Failure(operation: "fsync directory", errno: errno)) }
    return .success(())
  }
}
