import Foundation

/// How a child process ended.
public enum Termination: Equatable, CustomStringConvertible, Sendable {
  /// `exit(code)`.
  case exited(Int32)
  /// Killed by a signal.
  case signaled(Int32)

  public var description: String {
    switch self {
    case .exited(let code): "exited(\(code))"
    case .signaled(let signal): "signaled(\(signal))"
    }
  }
}

/// Runs built executables of this package as real child processes.
public enum ChildProcess {
  /// The build products directory (where the test bundle and the executables are).
  public static let productsDirectory: String = {
    let executable =
      (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
    var url = URL(fileURLWithPath: executable).deletingLastPathComponent()
    while url.path != "/" && !FileManager.default.fileExists(atPath: url.appendingPathComponent("chaos-target").path) {
      url = url.deletingLastPathComponent()
    }
    return url.path
  }()

  /// Path of a product executable, e.g. `chaos-target`.
  public static func product(_ name: String) -> String { productsDirectory + "/" + name }

  /// Spawns `executable` with `environment` added to a minimal one, in its own process group,
  /// and returns the pid. Standard output and error go to `/dev/null` unless paths are given.
  public static func spawn(
    _ executable: String, arguments: [String] = [], environment: [String: String], unsetting: [String] = [],
    stdout: String? = nil, stderr: String? = nil
  ) -> pid_t {
    var env = ["PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin", "SWIFT_BACKTRACE": "enable=no"]
    env.merge(environment) { $1 }
    for name in unsetting { env[name] = nil }
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 1, stdout ?? "/dev/null", O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    posix_spawn_file_actions_addopen(&actions, 2, stderr ?? "/dev/null", O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP))
    posix_spawnattr_setpgroup(&attributes, 0)
    let argv = ([executable] + arguments).map { strdup($0) } + [nil]
    let envp = env.map { strdup("\($0.key)=\($0.value)") } + [nil]
    defer { for pointer in argv + envp { free(pointer) } }
    var pid: pid_t = 0
    let result = posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
    precondition(result == 0, "posix_spawn \(executable) failed: \(String(cString: strerror(result)))")
    return pid
  }

  /// Waits for `pid`; past `timeout` seconds its process group is SIGKILLed and nil returned.
  public static func wait(_ pid: pid_t, timeout: Double = 30) -> Termination? {
    let deadline = Date().addingTimeInterval(timeout)
    var status: Int32 = 0
    while true {
      let reaped = waitpid(pid, &status, WNOHANG)
      if reaped == pid { break }
      if Date() > deadline {
        kill(-pid, SIGKILL)
        waitpid(pid, &status, 0)
        return nil
      }
      usleep(1_000)
    }
    if status & 0x7f == 0 { return .exited((status >> 8) & 0xff) }
    return .signaled(status & 0x7f)
  }

  /// Spawns and waits.
  public static func run(
    _ executable: String, arguments: [String] = [], environment: [String: String], timeout: Double = 30
  ) -> Termination? {
    wait(spawn(executable, arguments: arguments, environment: environment), timeout: timeout)
  }
}

/// Paths in this repository.
public enum Repository {
  /// The repository root (where Package.swift is).
  public static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().path
}
