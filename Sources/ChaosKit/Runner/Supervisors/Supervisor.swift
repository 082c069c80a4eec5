import Failpoints
import Foundation
import LaunchProtection

/// The harness playing systemd for one process (`supervisor:` in a scenario): it listens on a
/// `NOTIFY_SOCKET`, records every message line as a `notify` event in the process's events
/// file, and, as systemd does for `Type=notify`, sends SIGTERM when `READY=1` has not come
/// within the start timeout (extended by `EXTEND_TIMEOUT_USEC`), SIGABRT when a `WATCHDOG=1`
/// keep-alive is late, and SIGKILL to the group once the stop timeout passes after either.
/// Each action is recorded as a `supervisor` event.
final class SupervisorSession {
  let spec: SupervisorSpec
  /// `NOTIFY_SOCKET` for the target: an abstract socket, so no path length limit applies.
  let address: String
  private let fd: Int32
  private let eventsPath: String
  private(set) var pid: pid_t = 0
  private var ready = false
  private var startDeadline = UInt64.max
  private var lastKeepAlive: UInt64 = 0
  private var stop: StopEscalation?
  private var reaped = false

  struct Failure: Error, CustomStringConvertible {
    var description: String
  }

  init(spec: SupervisorSpec, eventsPath: String) throws(Failure) {
    self.spec = spec
    self.eventsPath = eventsPath
    let name = "chaos-notify-\(getpid())-\(UUID().uuidString.prefix(12))"
    address = "@" + name
    fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    guard fd >= 0 else { throw Failure(description: "supervisor: socket: \(String(cString: strerror(errno)))") }
    let bound = UnixSocketAddress(address)?.withSockaddr { bind(fd, $0, $1) } ?? -1
    guard bound == 0 else {
      close(fd)
      throw Failure(description: "supervisor: bind \(address): \(String(cString: strerror(errno)))")
    }
  }

  deinit { close(fd) }

  /// The environment systemd would add.
  var environment: [String: String] {
    var environment = ["NOTIFY_SOCKET": address]
    if let watchdog = spec.watchdog { environment["WATCHDOG_USEC"] = String(Int64(watchdog * 1e6)) }
    return environment
  }

  /// The process started now.
  func started(_ pid: pid_t) {
    self.pid = pid
    stop = StopEscalation(pid: pid, eventsPath: eventsPath, timeout: spec.stopTimeout)
    if let timeout = spec.startTimeout { startDeadline = MonotonicClock.nanoseconds() + UInt64(timeout * 1e9) }
  }

  /// The process was reaped: read what it sent last, and never signal its pid again.
  func finish() {
    receive()
    reaped = true
  }

  /// Reads pending messages and acts on the timers; called while the harness waits.
  func tick() {
    guard !reaped else { return }
    receive()
    guard stop?.begun == false else {
      stop?.tick()
      return
    }
    let now = MonotonicClock.nanoseconds()
    if !ready, now > startDeadline {
      stop?.begin(SIGTERM, reason: "start-timeout")
    } else if ready, let watchdog = spec.watchdog, now > lastKeepAlive + UInt64(watchdog * 1e9) {
      stop?.begin(SIGABRT, reason: "watchdog")
    }
  }

  private func receive() {
    var buffer = [UInt8](repeating: 0, count: 4096)
    while true {
      let count = recv(fd, &buffer, buffer.count, 0)
      guard count > 0 else { return }
      let now = MonotonicClock.nanoseconds()
      for line in String(decoding: buffer[0..<count], as: UTF8.self).split(separator: "\n") {
        HarnessEvent.append(["event": "notify", "message": String(line)], pid: pid, to: eventsPath)
        if line == "READY=1" {
          ready = true
          lastKeepAlive = now
        } else if line == "WATCHDOG=1" {
          lastKeepAlive = now
        } else if line.hasPrefix("EXTEND_TIMEOUT_USEC="), let micros = UInt64(line.dropFirst(20)), !ready {
          startDeadline = max(startDeadline == .max ? 0 : startDeadline, now + micros * 1000)
          if spec.startTimeout == nil { startDeadline = .max }
        }
      }
    }
  }
}
