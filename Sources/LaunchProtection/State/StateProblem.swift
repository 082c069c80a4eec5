/// Something wrong with the persisted state. None of these crashes or blocks the launch.
///
/// The documented behaviour: a missing file is a first launch (no problem); a corrupt,
/// truncated, future-version or unreadable file is moved aside (kept, never deleted) and
/// the launch proceeds from an empty state (count 0, normal mode); a failed write or lock
/// leaves protection degraded for this launch only — the launch still runs.
public enum StateProblem: Error, Sendable, Equatable, CustomStringConvertible {
  /// The file did not parse (truncated, garbage, wrong shape).
  case corrupt(path: String, movedTo: String?, detail: String)
  /// The file was written by a newer version of the library.
  case futureVersion(path: String, found: Int, supported: Int, movedTo: String?)
  /// The file exists but could not be read.
  case unreadable(path: String, errno: Int32, movedTo: String?)
  /// Persisting the state failed at `operation` (`mkdir`, `open`, `write`, `fsync`, `rename`).
  case writeFailed(path: String, operation: String, errno: Int32)
  /// The advisory lock could not be taken; the update ran without it.
  case lockUnavailable(path: String, detail: String)

  /// A short machine-readable kind, for events.
  public var kind: String {
    switch self {
    case .corrupt: "corrupt"
    case .futureVersion: "future_version"
    case .unreadable: "unreadable"
    case .writeFailed: "write_failed"
    case .lockUnavailable: "lock_unavailable"
    }
  }

  public var description: String {
    switch self {
    case .corrupt(let path, let movedTo, let detail):
      "state file \(path) is corrupt (\(detail)); \(Self.aside(movedTo)); starting from an empty state"
    case .futureVersion(let path, let found, let supported, let movedTo):
      "state file \(path) has version \(found), newer than \(supported); \(Self.aside(movedTo)); starting from an empty state"
    case .unreadable(let path, let errno, let movedTo):
      "state file \(path) cannot be read (\(ErrnoText.describe(errno))); \(Self.aside(movedTo)); starting from an empty state"
    case .writeFailed(let path, let operation, let errno):
      "cannot persist state to \(path): \(operation) failed (\(ErrnoText.describe(errno))); this launch is unprotected"
    case .lockUnavailable(let path, let detail):
      "cannot lock \(path) (\(detail)); updating without the lock"
    }
  }

  private static func aside(_ movedTo: String?) -> String {
    movedTo.map { "moved aside to \($0)" } ?? "could not be moved aside"
  }
}

enum ErrnoText {
  static func describe(_ code: Int32) -> String {
    "\(String(cString: strerror(code))), errno \(code)"
  }
}

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif
