#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// A symlink standing as the state directory, followed only when it is trusted: an
/// administrator's `/var/lib/app -> /srv/app`, made when the data moved to another disk, must
/// not turn protection off. The rule is systemd's `chase()` with `CHASE_SAFE`, which never makes
/// an "unsafe transition": the link belongs to root or to the state's uid, and so does the
/// directory holding it, which no other user can write (nobody else can swap the link). Its
/// target is then checked as the state directory itself. Any other link is refused.
enum TrustedLink {
  /// The most links followed from the configured path: a longer chain is refused, as `ELOOP`
  /// would be (a loop, or a chain no administrator makes on purpose).
  static let maximumLinks = 8

  /// Where the symlink at `path` leads, when it is trusted: nil when `path` is not a symlink
  /// (the caller reports its own error), a problem when it is one that may not be followed.
  /// `trusts` says whether an owner's files are trusted (root, the state's uid).
  static func target(of path: String, trusts: (uid_t) -> Bool) -> Result<String?, StateProblem> {
    let (parentPath, name) = split(path)
    guard !name.isEmpty, name != ".", name != ".." else { return .success(nil) }
    let parent = openParent(parentPath)
    guard parent >= 0 else { return .success(nil) }
    defer { close(parent) }
    // The link itself, relative to the directory checked below: the link judged is the link
    // read, and the directory judged is the one holding it.
    let link = openat(parent, name, pathOnly | O_NOFOLLOW | O_CLOEXEC)
    guard link >= 0 else { return .success(nil) }
    defer { close(link) }
    var info = stat()
    guard fstat(link, &info) == 0, info.st_mode & S_IFMT == S_IFLNK else { return .success(nil) }
    guard trusts(info.st_uid) else {
      return .failure(
        FileTrust.untrusted(
          path, info,
          "the state directory is a symlink owned by uid \(info.st_uid), not this process's uid or root; "
            + "not followed: this launch is unprotected"))
    }
    var held = stat()
    guard fstat(parent, &held) == 0 else { return .success(nil) }
    guard trusts(held.st_uid), !FileTrust.othersCanWrite(held.st_mode) else {
      let who = FileTrust.othersCanWrite(held.st_mode) ? "which other users can write" : "which another user owns"
      return .failure(
        FileTrust.untrusted(
          path, held,
          "the state directory is a symlink in \(parentPath), \(FileTrust.describe(held)), \(who) "
            + "(they could replace the link); not followed: this launch is unprotected"))
    }
    guard let text = readLink(link), !text.isEmpty else { return .success(nil) }
    if text.hasPrefix("/") { return .success(text) }
    return .success(parentPath == "/" ? "/" + text : parentPath + "/" + text)
  }

  /// The problem of a chain longer than ``maximumLinks``.
  static func tooMany(_ configured: String) -> StateProblem {
    StateProblem(
      .wrongFileType, path: configured,
      detail: "more than \(maximumLinks) symlinks lead from it to a directory (a loop?); "
        + "not followed: this launch is unprotected")
  }

  /// `path` without its trailing slashes (`/var/lib/app/` names the link itself, not what it
  /// leads to: a trailing slash would make the kernel follow it unchecked).
  static func trimmed(_ path: String) -> String {
    var result = Substring(path)
    while result.count > 1, result.hasSuffix("/") { result = result.dropLast() }
    return String(result)
  }

  /// The directory holding `path`'s last component, and that component.
  static func split(_ path: String) -> (parent: String, name: String) {
    guard let slash = path.lastIndex(of: "/") else { return (".", path) }
    let parent = String(path[..<slash])
    return (parent.isEmpty ? "/" : parent, String(path[path.index(after: slash)...]))
  }

  /// The link's text: `readlinkat` on the link's own `O_PATH` descriptor (an empty name).
  private static func readLink(_ fd: Int32) -> String? {
    var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
    let count = readlinkat(fd, "", &buffer, buffer.count - 1)
    guard count > 0, count < buffer.count - 1 else { return nil }
    return String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
  }

  private static func openParent(_ path: String) -> Int32 { openLinkParent(path, pathOnly | O_DIRECTORY | O_CLOEXEC) }

  /// `O_PATH` (see `StateDirectory`).
  private static let pathOnly: Int32 = 0o10000000
}

// `open` by a name of its own: a `Glibc.` prefix would not build against musl.
private func openLinkParent(_ path: String, _ flags: Int32) -> Int32 { open(path, flags) }
