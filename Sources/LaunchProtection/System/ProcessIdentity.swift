#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// Who a launch is: enough to tell, later and from another process, whether it is still running.
public struct ProcessIdentity: Sendable, Equatable, Codable {
  /// Process id.
  public var pid: Int32
  /// Start time in clock ticks since boot (`/proc/<pid>/stat` field 22): tells a reused pid apart.
  public var startTime: UInt64
  /// `/proc/sys/kernel/random/boot_id` when the launch began: tells a reboot apart from a crash.
  public var bootID: String
  /// The machine it ran on, when the app named it (`Configuration.machineIdentity`, e.g. a
  /// Kubernetes node's name): tells a reboot of this machine apart from a launch on another one
  /// whose state directory moved here (a PersistentVolume).
  public var machine: String?

  /// Creates an identity.
  public init(pid: Int32, startTime: UInt64, bootID: String) {
    self.init(pid: pid, startTime: startTime, bootID: bootID, machine: nil)
  }

  /// Creates an identity that names its machine.
  public init(pid: Int32, startTime: UInt64, bootID: String, machine: String?) {
    self.pid = pid
    self.startTime = startTime
    self.bootID = bootID
    self.machine = machine
  }
}

/// Where LaunchProtection learns facts about processes and the machine.
///
/// `.system` reads `/proc`; tests that simulate several launches inside one process
/// give each simulated launch its own identity and liveness.
public struct LaunchEnvironment: Sendable {
  /// The identity of the launch being started.
  public var current: @Sendable () -> ProcessIdentity
  /// Whether the process with this identity is still running (a zombie is not).
  public var isAlive: @Sendable (ProcessIdentity) -> Bool
  /// An identifier of the running executable; a change resets the count. Nil disables the check.
  public var executableID: @Sendable () -> String?

  /// Creates an environment from its three facts.
  public init(
    current: @escaping @Sendable () -> ProcessIdentity,
    isAlive: @escaping @Sendable (ProcessIdentity) -> Bool,
    executableID: @escaping @Sendable () -> String?
  ) {
    self.current = current
    self.isAlive = isAlive
    self.executableID = executableID
  }

  /// The real process, read from `/proc`.
  public static let system = LaunchEnvironment(
    current: { SystemProcessFacts.currentIdentity },
    isAlive: SystemProcessFacts.isAlive,
    executableID: { SystemProcessFacts.executableID }
  )
}

/// Facts read from procfs. Cached where they cannot change during the process's life.
enum SystemProcessFacts {
  static let currentIdentity = ProcessIdentity(
    pid: getpid(), startTime: startTime(of: getpid()) ?? 0, bootID: bootID())

  /// Size, modification time and inode of the executable: changes when a new build is installed.
  static let executableID: String? = {
    var info = stat()
    guard stat("/proc/self/exe", &info) == 0 else { return nil }
    return "size=\(info.st_size);mtime=\(info.st_mtim.tv_sec).\(info.st_mtim.tv_nsec);inode=\(info.st_ino)"
  }()

  static func bootID() -> String {
    guard var text = DurableFile.readSmallProcFile("/proc/sys/kernel/random/boot_id")?[...] else { return "unknown" }
    // ASCII whitespace only (a UUID and a newline): Foundation's trimming costs more than the read.
    let isSpace: (UInt8) -> Bool = { $0 == 0x20 || $0 == 0x0A || $0 == 0x09 || $0 == 0x0D }
    while let first = text.first, isSpace(first) { text.removeFirst() }
    while let last = text.last, isSpace(last) { text.removeLast() }
    return String(decoding: text, as: UTF8.self)
  }

  /// Parses `/proc/<pid>/stat`; returns nil when the process is gone.
  static func procStat(of pid: Int32) -> (state: UInt8, startTime: UInt64)? {
    guard let bytes = DurableFile.readSmallProcFile("/proc/\(pid)/stat"),
      let close = bytes.lastIndex(of: UInt8(ascii: ")"))
    else { return nil }
    // Fields after the command name, which may itself contain spaces and parentheses; split on
    // spaces and read the digits by hand (String.split, String and UInt64(_:) parsing cost a
    // fresh process more than the read).
    var state: UInt8?
    var index = close + 1
    var field = 0
    while index < bytes.count {
      if bytes[index] == UInt8(ascii: " ") {
        index += 1
        continue
      }
      let start = index
      while index < bytes.count, bytes[index] != UInt8(ascii: " ") { index += 1 }
      if field == 0 { state = bytes[start] }
      if field == 19 {
        guard let state, let startTime = decimal(bytes[start..<index]) else { return nil }
        return (state, startTime)
      }
      field += 1
    }
    return nil
  }

  /// An unsigned decimal number (digits only, no sign, no overflow), or nil.
  static func decimal(_ digits: ArraySlice<UInt8>) -> UInt64? {
    guard !digits.isEmpty else { return nil }
    var value: UInt64 = 0
    for byte in digits {
      guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
      let (times10, overflow1) = value.multipliedReportingOverflow(by: 10)
      let (sum, overflow2) = times10.addingReportingOverflow(UInt64(byte - UInt8(ascii: "0")))
      guard !overflow1, !overflow2 else { return nil }
      value = sum
    }
    return value
  }

  static func startTime(of pid: Int32) -> UInt64? { procStat(of: pid)?.startTime }

  static let isAlive: @Sendable (ProcessIdentity) -> Bool = { identity in
    guard identity.bootID == currentIdentity.bootID, let facts = procStat(of: identity.pid) else { return false }
    return facts.startTime == identity.startTime && facts.state != UInt8(ascii: "Z") && facts.state != UInt8(ascii: "X")
  }
}
