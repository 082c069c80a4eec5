import CProcessSpawn
import Failpoints
import Foundation

/// How a launched process ended, as `waitpid` and the watchdog saw it.
public enum ProcessEnd: Sendable, Equatable, Encodable, CustomStringConvertible {
  /// `exit(code)`.
  case exited(Int32)
  /// Died by a signal (not sent by the watchdog).
  case signaled(Int32)
  /// The watchdog SIGKILLed its process group.
  case timedOut

  /// Decodes a `waitpid` status (WIFEXITED/WEXITSTATUS, else WTERMSIG).
  package init(waitStatus status: Int32) {
    self = status & 0x7f == 0 ? .exited((status >> 8) & 0xff) : .signaled(status & 0x7f)
  }

  public var description: String {
    switch self {
    case .exited(let code): "exit(\(code))"
    case .signaled(let signal): Signals.name(signal)
    case .timedOut: "timeout (killed by the watchdog)"
    }
  }

  /// Encoded as its description, as reports show it.
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    try container.encode(description)
  }
}

/// Spawns one target process in its own process group with files for its output, and waits
/// for it under a watchdog that kills the whole group.
package struct ProcessLauncher {
  package var executable: String
  package var arguments: [String] = []
  package var environment: [String: String]
  package var stdoutPath: String
  package var stderrPath: String
  /// The child's working directory (nil: the harness's).
  package var workingDirectory: String?
  /// Start it as PID 1 of new PID and mount namespaces, as a container runtime does.
  package var container = false
  /// The user the process runs as; nil: the harness's own.
  package var user: RunAs? = nil

  package init(
    executable: String, arguments: [String] = [], environment: [String: String], stdoutPath: String,
    stderrPath: String, workingDirectory: String? = nil
  ) {
    self.executable = executable
    self.arguments = arguments
    self.environment = environment
    self.stdoutPath = stdoutPath
    self.stderrPath = stderrPath
    self.workingDirectory = workingDirectory
  }

  package struct Failure: Error, CustomStringConvertible {
    package var description: String
  }

  /// Starts the process in its own process group; it gets default signal dispositions and an
  /// empty signal mask whatever the harness has, and dies with the harness (PR_SET_PDEATHSIG),
  /// so not even a SIGKILL of `chaos` leaves it running. Call from the thread that reaps it.
  package func spawn() throws(Failure) -> pid_t {
    let argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
    let envp: [UnsafeMutablePointer<CChar>?] =
      environment.sorted { $0.key < $1.key }.map { strdup("\($0.key)=\($0.value)") } + [nil]
    defer { for pointer in argv + envp { free(pointer) } }
    var result: Int32 = 0
    var pid: pid_t?
    // ETXTBSY: a freshly copied binary (new_binary) can still be open for writing in a child
    // that another thread is forking at this moment; it clears once that child execs.
    for attempt in 0..<100 {
      pid = ChildRegistry.shared.register {
        var pid: pid_t = 0
        result = cps_spawn_as(
          executable, argv, envp, stdoutPath, stderrPath, 1, workingDirectory, container ? 1 : 0,
          user.map { Int64($0.uid) } ?? -1, user.map { Int64($0.gid) } ?? -1, &pid)
        return result == 0 ? pid : nil
      }
      guard pid == nil, result == ETXTBSY, attempt < 99 else { break }
      usleep(10_000)
    }
    guard let pid else {
      if ChildRegistry.shared.isCancelled { throw Failure(description: "interrupted") }
      if container, result == EPERM || result == EINVAL || result == ENOSYS {
        throw Failure(description: Self.containerUnavailable(result))
      }
      throw Failure(description: "cannot start \(executable): \(String(cString: strerror(result)))")
    }
    return pid
  }

  /// Why `container: true` cannot run on this machine (nil: it can), found once by starting
  /// `/bin/true` that way.
  static let containerProblem: String? = {
    var probe = ProcessLauncher(
      executable: "/bin/true", environment: [:], stdoutPath: "/dev/null", stderrPath: "/dev/null")
    probe.container = true
    do {
      let pid = try probe.spawn()
      _ = wait(pid, timeout: 10)
      return nil
    } catch {
      return "\(error)"
    }
  }()

  /// Why `container: true` cannot run here, and how to enable it.
  static func containerUnavailable(_ error: Int32) -> String {
    "container: true: cannot create PID and mount namespaces (\(String(cString: strerror(error)))): "
      + "they need CAP_SYS_ADMIN. Run chaos as root, or give its container the privilege "
      + "(docker run --privileged, or --cap-add SYS_ADMIN --security-opt seccomp=unconfined "
      + "--security-opt apparmor=unconfined; in GitHub Actions: container.options: --privileged)"
  }

  /// Waits for `pid`, ticking (see `wait(_:timeout:ticking:onTick:)`).
  package static func wait(_ pid: pid_t, timeout: Double, onTick: () -> Void = {}) -> ProcessEnd {
    wait(pid, timeout: timeout, ticking: true, onTick: onTick)
  }

  /// Waits for `pid`; past `timeout` seconds SIGKILLs its process group. `onTick` runs while
  /// waiting (to deliver scenario signals), every 50 µs at first and every 2 ms later; with
  /// `ticking` false there is nothing to run and the wait sleeps until the exit or up to
  /// 100 ms at a time (each wake-up took a core from the targets beside it).
  package static func wait(_ pid: pid_t, timeout: Double, ticking: Bool, onTick: () -> Void = {}) -> ProcessEnd {
    let deadline = MonotonicClock.nanoseconds() + UInt64(timeout * 1e9)
    var status: Int32 = 0
    var pause: UInt32 = ticking ? 50 : 100_000
    // The pidfd wakes the wait the moment the child exits; a plain sleep between waitpid
    // polls reaped it up to 2 ms late, which was most of the harness's cost over a bare
    // spawn for a launch of a few milliseconds. The pause still paces `onTick`.
    let exited = cps_pidfd_open(pid)
    defer { if exited >= 0 { close(exited) } }
    while true {
      let reaped = waitpid(pid, &status, WNOHANG)
      if reaped == pid { break }
      if reaped < 0 && errno != EINTR { break }
      if MonotonicClock.nanoseconds() > deadline {
        // A container dies through its runtime first (`runc kill`); runc itself is then killed.
        _ = ContainerRegistry.shared.signal(pid, SIGKILL)
        kill(-pid, SIGKILL)
        waitpid(pid, &status, 0)
        ChildRegistry.shared.unregister(pid)
        return .timedOut
      }
      onTick()
      if exited < 0 {
        // No pidfd (a kernel before 5.3): poll, fast at first.
        usleep(min(pause, 2_000))
        pause = min(pause * 2, 2_000)
        continue
      }
      // Read after onTick, which may take a while: the wait never outlasts the deadline.
      let now = MonotonicClock.nanoseconds()
      let left = deadline > now ? (deadline - now) / 1_000 + 1 : 1
      if cps_wait_readable(exited, Int(min(UInt64(pause), left))) < 0 { usleep(min(pause, 2_000)) }
      if ticking { pause = min(pause * 2, 2_000) }
    }
    // Whatever the leader left behind in its group dies with it: no orphans.
    kill(-pid, SIGKILL)
    ChildRegistry.shared.unregister(pid)
    return ProcessEnd(waitStatus: status)
  }
}

/// The harness's name for `MonotonicClock.nanoseconds()`, from before both read the clock
/// through one function; kept because 0.1.0 declared it.
package enum MonotonicNanoseconds {
  package static func now() -> UInt64 { MonotonicClock.nanoseconds() }
}
