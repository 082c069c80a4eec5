import Failpoints

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// systemd's notify protocol, spoken directly (no libsystemd): one datagram per message to the
/// Unix socket named by `NOTIFY_SOCKET` (a path, or `@name` for the abstract namespace).
/// Every call does nothing when `NOTIFY_SOCKET` is unset (not started by systemd, `Type=simple`).
public enum SystemdNotify {
  /// The socket address from `NOTIFY_SOCKET`, read once; nil when unset or unusable.
  static let socketPath: String? = {
    guard let value = getenv("NOTIFY_SOCKET").map({ String(cString: $0) }), !value.isEmpty else { return nil }
    guard value.hasPrefix("/") || value.hasPrefix("@") else { return nil }
    return value
  }()

  /// Whether `NOTIFY_SOCKET` is set.
  public static var isAvailable: Bool { socketPath != nil }

  /// The keep-alive interval systemd expects (`WATCHDOG_USEC`), when its watchdog is on for
  /// this process (`WATCHDOG_PID` unset or ours). Send `WATCHDOG=1` at least twice per interval.
  public static var watchdogInterval: Duration? {
    guard let text = getenv("WATCHDOG_USEC").map({ String(cString: $0) }), let micros: Int64 = IntegerText.value(text),
      micros > 0
    else { return nil }
    if let pid = getenv("WATCHDOG_PID").map({ String(cString: $0) }), IntegerText.value(pid) as Int32? != getpid() {
      return nil
    }
    return .microseconds(micros)
  }

  /// Tells systemd's watchdog this process is alive (`WATCHDOG=1`), when `WATCHDOG_USEC` is
  /// set for it; call it from your main loop at least twice per ``watchdogInterval``.
  ///
  /// - Returns: false when there is no watchdog to tell or the send failed.
  @discardableResult
  public static func keepAlive() -> Bool {
    guard watchdogInterval != nil else { return false }
    return send("WATCHDOG=1")
  }

  /// Sends `message` (newline-separated `KEY=value` lines) as one datagram. False when
  /// `NOTIFY_SOCKET` is unset or the send failed. Safe from any thread: a socket per call.
  @discardableResult
  public static func send(_ message: String) -> Bool {
    guard let path = socketPath else { return false }
    return send(message, to: path)
  }

  /// Sends one datagram to `path` (a socket path, or `@name`: abstract).
  static func send(_ message: String, to path: String) -> Bool {
    guard let address = UnixSocketAddress(path) else { return false }
    let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    guard fd >= 0 else { return false }
    defer { close(fd) }
    let payload = Array(message.utf8)
    let sent = address.withSockaddr { address, length in
      payload.withUnsafeBytes { sendto(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL), address, length) }
    }
    return sent == payload.count
  }
}
