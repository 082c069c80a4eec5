import Failpoints

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// An advisory `flock` on a separate lock file, so atomic renames of the state file never
/// swap the locked inode out from under another process.
struct FileLock {
  private let fd: Int32

  /// Takes the lock, polling so a stuck holder cannot block the launch past `timeout`. When the
  /// lock file cannot be opened, `onOpenFailure` runs (it creates the directory) and the open
  /// is tried once more.
  static func acquire(path: String, timeout: Duration, onOpenFailure: () -> Void = {}) -> Result<FileLock, StateProblem>
  {
    var fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
    if fd < 0 {
      onOpenFailure()
      fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
    }
    guard fd >= 0 else {
      return .failure(.lockUnavailable(path: path, detail: "open: \(ErrnoText.describe(errno))"))
    }
    // The clock is read only once the lock turns out to be held: the usual update finds it free.
    // Microseconds of CLOCK_MONOTONIC, 0 until then: an optional `ContinuousClock.Instant`
    // costs a fresh process ~25 000 instructions of metadata on its first launch.
    var deadline: Int64 = 0
    var pause: UInt32 = 50
    while flock(fd, LOCK_EX | LOCK_NB) != 0 {
      let code = errno
      guard code == EWOULDBLOCK || code == EINTR else {
        close(fd)
        return .failure(.lockUnavailable(path: path, detail: "flock: \(ErrnoText.describe(code))"))
      }
      let now = Int64(MonotonicClock.nanoseconds() / 1_000)
      if deadline == 0 { deadline = now + timeout.wholeMicroseconds }
      if now >= deadline {
        close(fd)
        return .failure(.lockUnavailable(path: path, detail: "still held by another process after \(timeout)"))
      }
      usleep(pause)
      pause = min(pause * 2, 5_000)
    }
    return .success(FileLock(fd: fd))
  }

  func release() {
    flock(fd, LOCK_UN)
    close(fd)
  }
}
