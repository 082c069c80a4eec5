import Foundation

/// What this run may do that a normal user may not: the effective uid and the effective
/// capability set (`CapEff` of /proc/self/status), read once. A scenario that needs a
/// privilege the run lacks is skipped, naming it (``ScenarioSkip``).
package enum Privileges {
  /// The capability names `requires:` accepts, with their numbers (linux/capability.h).
  package static let capabilities: [String: Int] = [
    "CAP_CHOWN": 0, "CAP_DAC_OVERRIDE": 1, "CAP_DAC_READ_SEARCH": 2, "CAP_FOWNER": 3, "CAP_FSETID": 4,
    "CAP_KILL": 5, "CAP_SETGID": 6, "CAP_SETUID": 7, "CAP_SETPCAP": 8, "CAP_LINUX_IMMUTABLE": 9,
    "CAP_NET_BIND_SERVICE": 10, "CAP_NET_BROADCAST": 11, "CAP_NET_ADMIN": 12, "CAP_NET_RAW": 13,
    "CAP_IPC_LOCK": 14, "CAP_IPC_OWNER": 15, "CAP_SYS_MODULE": 16, "CAP_SYS_RAWIO": 17, "CAP_SYS_CHROOT": 18,
    "CAP_SYS_PTRACE": 19, "CAP_SYS_PACCT": 20, "CAP_SYS_ADMIN": 21, "CAP_SYS_BOOT": 22, "CAP_SYS_NICE": 23,
    "CAP_SYS_RESOURCE": 24, "CAP_SYS_TIME": 25, "CAP_SYS_TTY_CONFIG": 26, "CAP_MKNOD": 27, "CAP_LEASE": 28,
    "CAP_AUDIT_WRITE": 29, "CAP_AUDIT_CONTROL": 30, "CAP_SETFCAP": 31, "CAP_MAC_OVERRIDE": 32,
    "CAP_MAC_ADMIN": 33, "CAP_SYSLOG": 34, "CAP_WAKE_ALARM": 35, "CAP_BLOCK_SUSPEND": 36, "CAP_AUDIT_READ": 37,
    "CAP_PERFMON": 38, "CAP_BPF": 39, "CAP_CHECKPOINT_RESTORE": 40,
  ]

  /// `root` or a capability name: what `requires:` accepts.
  package static func isKnown(_ privilege: String) -> Bool {
    privilege == "root" || capabilities[privilege] != nil
  }

  /// The effective capability set; 0 when /proc cannot be read.
  static let effective: UInt64 = {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
      let line = status.split(separator: "\n").first(where: { $0.hasPrefix("CapEff:") })
    else { return 0 }
    return UInt64(line.dropFirst("CapEff:".count).trimmingCharacters(in: .whitespaces), radix: 16) ?? 0
  }()

  /// Whether this run has `privilege` (`root`: the effective uid is 0).
  package static func has(_ privilege: String) -> Bool {
    if privilege == "root" { return geteuid() == 0 }
    guard let bit = capabilities[privilege] else { return false }
    return effective & (1 << UInt64(bit)) != 0
  }

  /// Who this run is, for a skip's reason: `uid 1000 (alice)`.
  static var runner: String {
    let uid = geteuid()
    return "uid \(uid)" + (getpwuid(uid).map { " (\(String(cString: $0.pointee.pw_name)))" } ?? "")
  }
}
