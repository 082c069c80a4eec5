import Failpoints

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// An advisory `flock` on a separate lock file, so atomic renames of the state file never
/// swap the locked inode out from under another process.
struct FileLock {
  let fd: Int32
  /// The store keeps `fd` for its next update: releasing unlocks it instead of closing it.
  var kept = false

  /// Takes the lock on `name` of `directory` (made private, 0600, when missing), polling so a
  /// stuck holder cannot block the launch past `timeout`. A symlink is not followed, a FIFO
  /// not waited on, and a lock file that is not a regular file of a trusted owner is refused
  /// (the problem's code says which; the caller moves it aside). Without `check`, only the open
  /// flags guard it (no link followed, a FIFO never waited on: a lock is never read).
  static func acquire(
    in directory: StateDirectory, _ name: String, timeout: Duration, check: Bool = true
  ) -> Result<FileLock, StateProblem> {
    let fd = openat(directory.fd, name, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, 0o600)
    guard fd >= 0 else {
      let failure = DurableFile.Failure(opening: directory.path(of: name), errno)
      return .failure(
        failure.refusal
          ?? .lockUnavailable(path: directory.path(of: name), detail: "open: \(ErrnoText.describe(failure.errno))"))
    }
    var info = stat()
    if check, let refusal = FileTrust.check(fd, path: directory.path(of: name), uid: directory.uid, info: &info) {
      close(fd)
      return .failure(refusal)
    }
    if let problem = take(fd, path: directory.path(of: name), timeout: timeout) {
      close(fd)
      return .failure(problem)
    }
    return .success(FileLock(fd: fd))
  }

  /// Locks the open lock file `fd`, polling until `timeout`; the problem when it cannot.
  static func take(_ fd: Int32, path: @autoclosure () -> String, timeout: Duration) -> StateProblem? {
    // The clock is read only once the lock turns out to be held: the usual update finds it free.
    // Microseconds of CLOCK_MONOTONIC, 0 until then: an optional `ContinuousClock.Instant`
    // costs a fresh process ~25 000 instructions of metadata on its first launch.
    var deadline: Int64 = 0
    var pause: UInt32 = 50
    while flock(fd, LOCK_EX | LOCK_NB) != 0 {
      let code = errno
      guard code == EWOULDBLOCK || code == EINTR else {
        return .lockUnavailable(path: path(), detail: "flock: \(ErrnoText.describe(code))")
      }
      let now = Int64(MonotonicClock.nanoseconds() / 1_000)
      if deadline == 0 { deadline = now + timeout.wholeMicroseconds }
      if now >= deadline {
        return .lockUnavailable(path: path(), detail: "still held by another process after \(timeout)")
      }
      usleep(pause)
      pause = min(pause * 2, 5_000)
    }
    return nil
  }

  /// Releases the lock: a kept descriptor is unlocked; any other is closed, which releases the
  /// `flock` of its only descriptor (no `LOCK_UN` first: one system call less).
  func release() {
    if kept { flock(fd, LOCK_UN) } else { close(fd) }
  }
}
