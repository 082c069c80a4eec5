import CCrashCapture

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// The state directory, opened once and checked against the trust rule; every file in it is
/// then opened relative to this descriptor (`openat`), so no path swapped after the check can
/// redirect a read or a write (systemd's `chase()`, OpenSSH's StrictModes).
///
/// The rule: the directory must be owned by this process's effective uid or by root. A symlink
/// standing as it is followed only when trusted (`TrustedLink`: its owner and the directory
/// holding it are root's or this uid's, and no other user can write that directory); its target
/// is then held to this same rule. When another user can write the directory (group- or
/// world-writable: a Kubernetes `emptyDir` is 0777, an `fsGroup` volume group-writable), the
/// state lives in a subdirectory that only this uid can write, `private-<euid>`, made here;
/// whatever else lies in the shared directory is ignored.
struct StateDirectory: Sendable {
  /// The descriptor of the directory the files live in (`O_DIRECTORY`, close-on-exec).
  let fd: Int32
  /// Its path, for messages and for tools: the configured directory (the target of a trusted
  /// link standing as it) or its private subdirectory.
  let path: String
  /// The uid it was checked for (its files must be this uid's or root's): read once, not per file.
  let uid: uid_t

  /// The path of `name` in it, for messages.
  func path(of name: String) -> String { path + "/" + name }

  /// The name of the private subdirectory used inside a directory other users can write.
  static func privateName(uid: uid_t) -> String { "private-\(uid)" }

  /// The names the library keeps in the directory.
  static let stateName = "launch-state.json"
  static let lockName = "launch-state.lock"

  /// Opens `configured` (made, with its missing parents, when `create` and it does not exist),
  /// checked against the trust rule for `uid`. `notices`: problems that do not stop the use of
  /// the directory (another user's state file in a shared directory, ignored).
  static func open(
    _ configured: String, create: Bool, uid given: uid_t? = nil, readerGroup: UInt32? = nil,
    notices: inout [StateProblem]
  ) -> Result<StateDirectory?, StateProblem> {
    // A trusted symlink is followed (TrustedLink), and its target checked below as the
    // directory itself: `path` is the directory actually opened.
    let uidAtExec = given ?? uid_t(lcc_exec_effective_uid())
    let trusts = { (owner: uid_t) in
      FileTrust.ownerIsTrusted(owner, uid: uidAtExec) || (given == nil && owner == geteuid())
    }
    var path = TrustedLink.trimmed(configured)
    var (fd, code) = openDirectoryWithErrno(path)
    var links = 0
    following: while fd < 0, code == ENOTDIR || code == ELOOP {
      switch TrustedLink.target(of: path, trusts: trusts) {
      case .failure(let problem): return .failure(problem)
      case .success(nil): break following
      case .success(let target?):
        links += 1
        guard links <= TrustedLink.maximumLinks else { return .failure(TrustedLink.tooMany(configured)) }
        path = TrustedLink.trimmed(target)
        (fd, code) = openDirectoryWithErrno(path)
      }
    }
    if fd < 0, code == ENOENT {
      guard create else { return .success(nil) }
      if let problem = makeDirectories(path, readerGroup: readerGroup) { return .failure(problem) }
      (fd, code) = openDirectoryWithErrno(path)
    }
    guard fd >= 0 else { return .failure(openFailure(path, code)) }
    var info = stat()
    guard fstat(fd, &info) == 0 else {
      let code = errno
      close(fd)
      return .failure(.writeFailed(path: path, operation: "fstat directory", errno: code))
    }
    // The effective uid: `getauxval(AT_EUID)`, what it was at exec, costs no system call and is
    // the answer unless the process changed it since (a daemon dropping root). `geteuid()` is
    // asked whenever that value would decide anything: the directory is neither root's nor the
    // exec-time uid's, or other users can write it (its private subdirectory is named after it).
    var uid = uidAtExec
    if given == nil, (info.st_uid != uid && info.st_uid != 0) || FileTrust.othersCanWrite(info.st_mode) {
      uid = geteuid()
    }
    guard FileTrust.ownerIsTrusted(info.st_uid, uid: uid) else {
      close(fd)
      return .failure(
        FileTrust.untrusted(
          path, info,
          "the state directory belongs to uid \(info.st_uid) (\(FileTrust.modeText(info.st_mode))), not to this "
            + "process's uid \(uid) or root; not used: this launch is unprotected"))
    }
    guard FileTrust.othersCanWrite(info.st_mode) else {
      return .success(StateDirectory(fd: fd, path: path, uid: uid))
    }
    defer { close(fd) }
    return openPrivate(
      in: fd, configured: path, announcedAs: configured, shared: info, create: create, uid: uid,
      readerGroup: readerGroup, notices: &notices)
  }

  /// The private subdirectory of a shared directory `parent`, made when missing. The move is
  /// noted for the organizer to say once (`StateDirectoryNotices`, by `announcedAs`: the path
  /// as the app gave it) when `create` (an update or crash capture, not a tool's read).
  private static func openPrivate(
    in parent: Int32, configured: String, announcedAs: String, shared: stat, create: Bool, uid: uid_t,
    readerGroup: UInt32?, notices: inout [StateProblem]
  ) -> Result<StateDirectory?, StateProblem> {
    let name = privateName(uid: uid)
    let path = configured + "/" + name
    var fd = openat(parent, name, directoryFlags)
    if fd < 0, errno == ENOENT {
      guard create else { return .success(nil) }
      if mkdirat(parent, name, readerGroup == nil ? 0o700 : 0o750) != 0, errno != EEXIST {
        return .failure(.writeFailed(path: path, operation: "mkdir", errno: errno))
      }
      fd = openat(parent, name, directoryFlags)
      if fd >= 0, let group = readerGroup { share(fd, with: group, mode: 0o750) }
    }
    guard fd >= 0 else { return .failure(openFailure(path, errno)) }
    var info = stat()
    guard fstat(fd, &info) == 0, info.st_uid == uid, !FileTrust.othersCanWrite(info.st_mode) else {
      close(fd)
      return .failure(
        FileTrust.untrusted(
          path, info,
          "the private state directory is \(FileTrust.describe(info)), not this user's alone; "
            + "not used: this launch is unprotected"))
    }
    if create {
      StateDirectoryNotices.noteMove(
        configured: announcedAs, directory: path,
        reason: "other users can write \(configured) (\(FileTrust.describe(shared)))")
    }
    // Someone's state file at the top of a shared directory: never read. Said once per file, so
    // that an operator sees why an old count is gone, and who wrote it.
    var top = stat()
    if fstatat(parent, stateName, &top, AT_SYMLINK_NOFOLLOW) == 0,
      StateDirectoryNotices.isNew(top, configured: announcedAs, privateDirectory: fd, path: path, uid: uid)
    {
      notices.append(
        FileTrust.untrusted(
          configured + "/" + stateName, top,
          "ignored: \(FileTrust.describe(top)) in a directory other users can write (\(FileTrust.modeText(shared.st_mode))); "
            + "the state is kept in \(path)"))
    }
    return .success(StateDirectory(fd: fd, path: path, uid: uid))
  }

  /// `O_NOFOLLOW`: the kernel never follows a symlink standing as the directory (with `O_PATH`
  /// and `O_DIRECTORY` the open fails, `ENOTDIR`): only `TrustedLink`'s rule follows one.
  /// `O_PATH`: the descriptor only names the directory for `openat`, `fstat` and the like, and
  /// costs a third less to open (an fsync or a listing opens `.` through it).
  private static let directoryFlags = pathOnly | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC

  /// `O_PATH`, which Glibc's module leaves out (it is a `_GNU_SOURCE` name): 010000000 in
  /// Linux's generic `fcntl.h`, which x86_64 and aarch64 both use.
  private static let pathOnly: Int32 = 0o10000000

  /// `fd`'s directory opened for reading (to list it, fsync it or change its owner), or -1.
  static func readable(_ fd: Int32) -> Int32 { openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC) }

  /// Gives the directory `fd` to `group` with `mode`, through a readable descriptor (an
  /// `O_PATH` one cannot change its owner).
  private static func share(_ fd: Int32, with group: UInt32, mode: mode_t) {
    let readable = readable(fd)
    guard readable >= 0 else { return }
    FileTrust.shareWithGroup(readable, group, mode: mode)
    close(readable)
  }

  private static func openDirectory(_ path: String) -> Int32 { openPath(path, directoryFlags) }

  /// `openDirectory`, with the errno of a failure (0 on success).
  private static func openDirectoryWithErrno(_ path: String) -> (fd: Int32, errno: Int32) {
    let fd = openDirectory(path)
    return (fd, fd < 0 ? errno : 0)
  }

  private static func openFailure(_ path: String, _ code: Int32) -> StateProblem {
    switch code {
    case ELOOP:
      StateProblem(
        .wrongFileType, path: path, detail: "a symlink stands where the state directory should be; not followed")
    case ENOTDIR:
      StateProblem(.wrongFileType, path: path, detail: "not a directory; not used")
    default:
      .writeFailed(path: path, operation: "open directory", errno: code)
    }
  }

  /// `mkdir -p`: each missing directory of `path`, parents first, private (0700; 0750 and the
  /// reader group's when one is set). A parent that exists is left as it is.
  static func makeDirectories(_ path: String, readerGroup: UInt32?) -> StateProblem? {
    var prefix = path.hasPrefix("/") ? "" : "."
    let mode: mode_t = readerGroup == nil ? 0o700 : 0o750
    for component in path.split(separator: "/") {
      // String's own `append`s: `"/" + component` is the generic one, whose first call costs
      // a launch about 80,000 instructions of associated-type lookups (callgrind).
      prefix.append("/")
      prefix.append(contentsOf: String(component))
      if mkdir(prefix, mode) == 0 {
        if let group = readerGroup {
          let fd = openDirectory(prefix)
          if fd >= 0 {
            share(fd, with: group, mode: mode)
            close(fd)
          }
        }
      } else if errno != EEXIST {
        return .writeFailed(path: prefix, operation: "mkdir", errno: errno)
      }
    }
    return nil
  }
}

// `open` by a name of its own: a `Glibc.` prefix would not build against musl.
private func openPath(_ path: String, _ flags: Int32) -> Int32 { open(path, flags) }
