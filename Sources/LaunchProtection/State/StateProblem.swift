#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// Something wrong with the persisted state. None of these crashes or blocks the launch.
///
/// The documented behaviour: a missing file is a first launch (no problem); a corrupt,
/// truncated, future-version or unreadable file is moved aside (kept, never deleted) and
/// the launch proceeds from an empty state (count 0, normal mode); a failed write or lock
/// leaves protection degraded for this launch only — the launch still runs. State that
/// another user could have written (``Code-swift.struct/untrusted``) or that is not a regular
/// file (``Code-swift.struct/wrongFileType``) is never read, followed or written through (the
/// Security article).
///
/// A struct, not an enum, so that a later version can add a kind of problem without breaking
/// a caller's `switch`: switch over ``code-swift.property`` and keep a `default`.
///
/// Two problems are equal (`==`, and the same hash) when every property but ``detail`` is:
/// the code, the path, where the file was moved, the errno, the operation, the versions, the
/// owner and the mode. ``detail`` is words, which a release may change (the version promise
/// leaves out the text of messages), so a problem compares equal across such a change.
public struct StateProblem: Error, Sendable, Hashable, CustomStringConvertible {
  /// What kind of problem it is. New codes may be added in any release.
  public struct Code: Hashable, Sendable, CustomStringConvertible {
    /// The machine-readable name (`corrupt`, `untrusted`…), as events and log lines carry it.
    public let name: String

    /// Every code of this version, as an enum, for the library's own `switch`es: the only
    /// initializer takes one, so a code added below fails to compile until each `switch` over
    /// ``known`` handles it (a `default` would call it something it is not).
    @usableFromInline package enum Known: String, CaseIterable, Sendable {
      case corrupt, unreadable, untrusted
      case futureVersion = "future_version"
      case writeFailed = "write_failed"
      case lockUnavailable = "lock_unavailable"
      case wrongFileType = "wrong_file_type"
    }

    @usableFromInline init(_ known: Known) { self.name = known.rawValue }

    /// This code as the enum the library switches over; every code is one (see ``Known``).
    package var known: Known { Known(rawValue: name)! }

    /// The file did not parse (truncated, garbage, wrong shape).
    @_alwaysEmitIntoClient
    public static var corrupt: Code { Code(.corrupt) }
    /// The file was written by a newer version of the library.
    @_alwaysEmitIntoClient
    public static var futureVersion: Code { Code(.futureVersion) }
    /// The file exists but could not be read.
    @_alwaysEmitIntoClient
    public static var unreadable: Code { Code(.unreadable) }
    /// Persisting the state failed at ``StateProblem/operation``.
    @_alwaysEmitIntoClient
    public static var writeFailed: Code { Code(.writeFailed) }
    /// The advisory lock could not be taken; the update ran without it.
    @_alwaysEmitIntoClient
    public static var lockUnavailable: Code { Code(.lockUnavailable) }
    /// The path is owned by another user, or sits in a directory another user can write:
    /// it is ignored (never read, counted or written through). ``StateProblem/owner`` and
    /// ``StateProblem/mode`` say why.
    @_alwaysEmitIntoClient
    public static var untrusted: Code { Code(.untrusted) }
    /// A symlink, FIFO, socket, device or directory stands where a regular file (or, for the
    /// state directory, a directory) should be: it is not followed, opened or read. A symlink
    /// as the state directory itself is followed when trusted (the Security article); a chain
    /// of more than 8 links, or one that ends elsewhere than at a directory, is this problem.
    @_alwaysEmitIntoClient
    public static var wrongFileType: Code { Code(.wrongFileType) }

    /// The name.
    public var description: String { name }
  }

  /// What kind of problem it is.
  public var code: Code
  /// The file or directory concerned.
  public var path: String
  /// Where the unusable file was moved (next to itself); nil when it was not, or could not be.
  public var movedTo: String?
  /// What was wrong, in words (a parse error, `a FIFO`, the lock's holder).
  public var detail: String
  /// The failing call's errno, for ``Code-swift.struct/unreadable`` and
  /// ``Code-swift.struct/writeFailed``.
  public var errno: Int32?
  /// The failing operation of ``Code-swift.struct/writeFailed`` (`mkdir`, `open`, `write`,
  /// `fsync`, `rename`).
  public var operation: String?
  /// The version found, for ``Code-swift.struct/futureVersion``.
  public var foundVersion: Int?
  /// The newest version this library reads, for ``Code-swift.struct/futureVersion``.
  public var supportedVersion: Int?
  /// The owner's uid of an ``Code-swift.struct/untrusted`` or
  /// ``Code-swift.struct/wrongFileType`` path.
  public var owner: UInt32?
  /// The permission bits (and file type) of an ``Code-swift.struct/untrusted`` or
  /// ``Code-swift.struct/wrongFileType`` path, as `stat` gives `st_mode`.
  public var mode: UInt32?

  /// A problem of `code` at `path`.
  public init(
    _ code: Code, path: String, detail: String = "", movedTo: String? = nil, errno: Int32? = nil,
    operation: String? = nil, owner: UInt32? = nil, mode: UInt32? = nil
  ) {
    self.code = code
    self.path = path
    self.detail = detail
    self.movedTo = movedTo
    self.errno = errno
    self.operation = operation
    self.owner = owner
    self.mode = mode
  }

  /// A short machine-readable kind, for events: ``Code-swift.struct/name``.
  public var kind: String { code.name }

  /// The file did not parse (truncated, garbage, wrong shape).
  public static func corrupt(path: String, movedTo: String?, detail: String) -> StateProblem {
    StateProblem(.corrupt, path: path, detail: detail, movedTo: movedTo)
  }

  /// The file was written by a newer version of the library.
  public static func futureVersion(path: String, found: Int, supported: Int, movedTo: String?) -> StateProblem {
    var problem = StateProblem(.futureVersion, path: path, detail: "version \(found)", movedTo: movedTo)
    problem.foundVersion = found
    problem.supportedVersion = supported
    return problem
  }

  /// The file exists but could not be read.
  public static func unreadable(path: String, errno: Int32, movedTo: String?) -> StateProblem {
    StateProblem(.unreadable, path: path, detail: ErrnoText.describe(errno), movedTo: movedTo, errno: errno)
  }

  /// Persisting the state failed at `operation` (`mkdir`, `open`, `write`, `fsync`, `rename`).
  public static func writeFailed(path: String, operation: String, errno: Int32) -> StateProblem {
    StateProblem(.writeFailed, path: path, detail: ErrnoText.describe(errno), errno: errno, operation: operation)
  }

  /// The advisory lock could not be taken; the update ran without it.
  public static func lockUnavailable(path: String, detail: String) -> StateProblem {
    StateProblem(.lockUnavailable, path: path, detail: detail)
  }

  public var description: String {
    switch code.known {
    case .corrupt:
      "state file \(path) is corrupt (\(detail)); \(aside); starting from an empty state"
    case .futureVersion:
      "state file \(path) has version \(foundVersion ?? 0), newer than \(supportedVersion ?? 0); \(aside); starting from an empty state"
    case .unreadable:
      "state file \(path) cannot be read (\(detail)); \(aside); starting from an empty state"
    case .writeFailed:
      "cannot persist state to \(path): \(operation ?? "write") failed (\(detail)); this launch is unprotected"
    case .lockUnavailable:
      "cannot lock \(path) (\(detail)); updating without the lock"
    case .untrusted, .wrongFileType:
      "\(path): \(detail)\(movedTo.map { "; moved aside to \($0)" } ?? "")"
    }
  }

  /// Equal when every property but the words of ``detail`` is (see the type's comment).
  public static func == (lhs: StateProblem, rhs: StateProblem) -> Bool {
    lhs.code == rhs.code && lhs.path == rhs.path && lhs.movedTo == rhs.movedTo && lhs.errno == rhs.errno
      && lhs.operation == rhs.operation && lhs.foundVersion == rhs.foundVersion
      && lhs.supportedVersion == rhs.supportedVersion && lhs.owner == rhs.owner && lhs.mode == rhs.mode
  }

  /// Hashes what `==` compares: every property but ``detail``.
  public func hash(into hasher: inout Hasher) {
    hasher.combine(code)
    hasher.combine(path)
    hasher.combine(movedTo)
    hasher.combine(self.errno)
    hasher.combine(operation)
    hasher.combine(foundVersion)
    hasher.combine(supportedVersion)
    hasher.combine(owner)
    hasher.combine(mode)
  }

  private var aside: String {
    movedTo.map { "moved aside to \($0)" } ?? "could not be moved aside"
  }
}

enum ErrnoText {
  static func describe(_ code: Int32) -> String {
    "\(String(cString: strerror(code))), errno \(code)"
  }
}
