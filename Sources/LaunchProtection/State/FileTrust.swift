#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// The trust rule for what the library reads from its state directory: a file is used only
/// when it is a regular file owned by this process's effective uid or by root (the directory
/// rule is `StateDirectory`'s). One `fstat` of what was opened, no second lookup by path.
package enum FileTrust {
  /// Root, or the effective uid the state belongs to.
  static func ownerIsTrusted(_ owner: uid_t, uid: uid_t) -> Bool { owner == uid || owner == 0 }

  /// Group- or world-writable: someone else may create, rename or remove entries.
  static func othersCanWrite(_ mode: mode_t) -> Bool { mode & 0o022 != 0 }

  /// Why the open file `fd` (at `path`) may not be used by `uid`: nil when it is a regular
  /// file of a trusted owner. `info` receives its `fstat`. The path is built only for a problem.
  static func check(_ fd: Int32, path: @autoclosure () -> String, uid: uid_t, info: inout stat) -> StateProblem? {
    guard fstat(fd, &info) == 0 else {
      return .unreadable(path: path(), errno: errno, movedTo: nil)
    }
    guard info.st_mode & S_IFMT == S_IFREG else {
      return StateProblem(
        .wrongFileType, path: path(), detail: "\(describe(info)) stands where a file should be; not read",
        owner: info.st_uid, mode: info.st_mode)
    }
    guard ownerIsTrusted(info.st_uid, uid: uid) else {
      return untrusted(path(), info, "\(describe(info)), not this process's uid \(uid) or root; not read")
    }
    return nil
  }

  /// The problem of a path whose owner or mode is not trusted.
  static func untrusted(_ path: String, _ info: stat, _ detail: String) -> StateProblem {
    StateProblem(.untrusted, path: path, detail: detail, owner: info.st_uid, mode: info.st_mode)
  }

  /// `a FIFO`, `a regular file owned by uid 65534, mode 0644`…
  static func describe(_ info: stat) -> String {
    let kind =
      switch info.st_mode & S_IFMT {
      case S_IFREG: "a regular file"
      case S_IFDIR: "a directory"
      case S_IFLNK: "a symlink"
      case S_IFIFO: "a FIFO"
      case S_IFSOCK: "a socket"
      case S_IFCHR, S_IFBLK: "a device"
      default: "a file of unknown type"
      }
    return "\(kind) owned by uid \(info.st_uid), \(modeText(info.st_mode))"
  }

  /// `mode 0777`, `mode 2775`: the permission bits with setuid, setgid and sticky, in octal.
  static func modeText(_ mode: mode_t) -> String { "mode " + octal(mode) }

  /// The permission bits as `ls` and `chmod` write them (`0777`, `2775`): the `mode` of a
  /// `state_problem` event (ChaosProbe) and of the problem's words.
  package static func octal(_ mode: mode_t) -> String {
    let bits = String(mode & 0o7777, radix: 8)
    return String(repeating: "0", count: max(0, 4 - bits.count)) + bits
  }

  /// Lets `group` read what `fd` is: its group set first, then `mode`; a failed `fchown` (not a
  /// member of the group) leaves the file private rather than readable by the wrong group.
  static func shareWithGroup(_ fd: Int32, _ group: UInt32, mode: mode_t) {
    if fchown(fd, uid_t.max, gid_t(group)) == 0 { fchmod(fd, mode) }
  }
}
