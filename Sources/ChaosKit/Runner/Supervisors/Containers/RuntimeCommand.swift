import CProcessSpawn
import Foundation

/// Runs the runtime's short commands (`kill`, `delete`, `state`) to completion, outside the
/// child registry: they must still run while an interrupt cancels everything else.
enum RuntimeCommand {
  /// Runs `executable arguments…`; its exit status (nil: it could not start or outlived 10 s)
  /// and its standard error.
  static func run(_ executable: String, _ arguments: [String]) -> (status: Int32?, stderr: String) {
    let errorPath = "\(OCIBundle.parent)/cmd-\(getpid())-\(UUID().uuidString.prefix(8)).err"
    mkdir(OCIBundle.parent, 0o700)
    defer { unlink(errorPath) }
    let argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
    let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/sbin:/usr/bin:/sbin:/bin"
    let envp: [UnsafeMutablePointer<CChar>?] = [strdup("PATH=\(path)"), nil]
    defer { for pointer in argv + envp { free(pointer) } }
    var pid: pid_t = 0
    guard cps_spawn_in(executable, argv, envp, "/dev/null", errorPath, 0, nil, &pid) == 0 else {
      return (nil, "cannot start \(executable)")
    }
    let end = ProcessLauncher.wait(pid, timeout: 10, ticking: false)
    let stderr = (FileManager.default.contents(atPath: errorPath)).map { String(decoding: $0, as: UTF8.self) } ?? ""
    switch end {
    case .exited(let code): return (code, stderr)
    case .signaled, .timedOut: return (nil, stderr + "\n\(executable) \(arguments.first ?? ""): \(end)")
    }
  }

  /// The absolute path of `name` on PATH or in the sbin folders, where Debian puts runc.
  static func find(_ name: String) -> String? {
    let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
    let folders = path.split(separator: ":").map(String.init) + ["/usr/local/sbin", "/usr/sbin", "/sbin"]
    return folders.map { $0 + "/" + name }.first { access($0, X_OK) == 0 }
  }
}
