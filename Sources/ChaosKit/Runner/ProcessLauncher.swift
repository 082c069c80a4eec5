import Foundation

/// How a launched process ended, as `waitpid` and the watchdog saw it.
public enum ProcessEnd: Sendable, Equatable, CustomStringConvertible {
  /// `exit(code)`.
  case exited(Int32)
  /// Died by a signal (not sent by the watchdog).
  case signaled(Int32)
  /// The watchdog SIGKILLed its process group.
  case timedOut

  /// Decodes a `waitpid` status (WIFEXITED/WEXITSTATUS, else WTERMSIG).
  init(waitStatus status: Int32) {
    self = status & 0x7f == 0 ? .exited((status >> 8) & 0xff) : .signaled(status & 0x7f)
  }

  public var description: String {
    switch self {
    case .exited(let code): "exit(\(code))"
    case .signaled(let signal): Signals.name(signal)
    case .timedOut: "timeout (killed by the watchdog)"
    }
  }
}

/// Spawns one target process in its own process group with files for its output, and waits
/// for it under a watchdog that kills the whole group.
struct ProcessLauncher {
  var executable: String
  var environment: [String: String]
  var stdoutPath: String
  var stderrPath: String

  struct Failure: Error, CustomStringConvertible {
    var description: String
  }

  /// Starts the process; it gets default signal dispositions and an empty signal mask
  /// whatever the harness has blocked.
  func spawn() throws(Failure) -> pid_t {
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 1, stdoutPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    posix_spawn_file_actions_addopen(&actions, 2, stderrPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    var empty = sigset_t()
    sigemptyset(&empty)
    var defaults = sigset_t()
    sigemptyset(&defaults)
    for signal in [SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE, SIGUSR1, SIGUSR2, SIGCHLD] {
      sigaddset(&defaults, signal)
    }
    posix_spawnattr_setsigmask(&attributes, &empty)
    posix_spawnattr_setsigdefault(&attributes, &defaults)
    posix_spawnattr_setpgroup(&attributes, 0)
    posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
    let argv: [UnsafeMutablePointer<CChar>?] = [strdup(executable), nil]
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
        result = posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
        return result == 0 ? pid : nil
      }
      guard pid == nil, result == ETXTBSY, attempt < 99 else { break }
      usleep(10_000)
    }
    guard let pid else {
      if ChildRegistry.shared.isCancelled { throw Failure(description: "interrupted") }
      throw Failure(description: "cannot start \(executable): \(String(cString: strerror(result)))")
    }
    return pid
  }

  /// Waits for `pid`; past `timeout` seconds SIGKILLs its process group. `onTick` runs while
  /// waiting (to deliver scenario signals).
  static func wait(_ pid: pid_t, timeout: Double, onTick: () -> Void = {}) -> ProcessEnd {
    let deadline = MonotonicNanoseconds.now() + UInt64(timeout * 1e9)
    var status: Int32 = 0
    var pause: UInt32 = 50
    while true {
      let reaped = waitpid(pid, &status, WNOHANG)
      if reaped == pid { break }
      if reaped < 0 && errno != EINTR { break }
      if MonotonicNanoseconds.now() > deadline {
        kill(-pid, SIGKILL)
        waitpid(pid, &status, 0)
        ChildRegistry.shared.unregister(pid)
        return .timedOut
      }
      onTick()
      usleep(pause)
      pause = min(pause * 2, 2_000)
    }
    // Whatever the leader left behind in its group dies with it: no orphans.
    kill(-pid, SIGKILL)
    ChildRegistry.shared.unregister(pid)
    return ProcessEnd(waitStatus: status)
  }
}

enum MonotonicNanoseconds {
  static func now() -> UInt64 {
    var spec = timespec()
    clock_gettime(CLOCK_MONOTONIC, &spec)
    return UInt64(spec.tv_sec) * 1_000_000_000 + UInt64(spec.tv_nsec)
  }
}
