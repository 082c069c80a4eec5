import CProcessSpawn
import Foundation

/// Runs a short command to completion and keeps what it printed: `nsenter … systemctl` and
/// `journalctl` in a booted machine. Outside the child registry, as the runtime's commands
/// are: a stop must still run while an interrupt cancels everything else.
enum MachineCommand {
  /// What a command did: its exit status (nil: it could not start or outlived its time) and output.
  struct Output {
    var status: Int32?
    var stdout: String
    var stderr: String

    /// Both outputs' last lines, for an error message.
    var said: String {
      (stdout + "\n" + stderr).split(separator: "\n").suffix(3).joined(separator: "; ")
    }
  }

  /// Runs `argv` with a plain environment, its output in files under `folder`.
  static func run(_ argv: [String], folder: String, timeout: Double = 20) -> Output {
    let stem = "\(folder)/cmd-\(UUID().uuidString.prefix(8))"
    defer {
      unlink(stem + ".out")
      unlink(stem + ".err")
    }
    let arguments: [UnsafeMutablePointer<CChar>?] = argv.map { strdup($0) } + [nil]
    let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/sbin:/usr/bin:/sbin:/bin"
    // No pager, no colours, no question: a script's view of systemctl and journalctl.
    let environment = ["PATH=\(path)", "SYSTEMD_PAGER=", "SYSTEMD_COLORS=0", "LC_ALL=C.UTF-8"]
    let envp: [UnsafeMutablePointer<CChar>?] = environment.map { strdup($0) } + [nil]
    defer { for pointer in arguments + envp { free(pointer) } }
    var pid: pid_t = 0
    guard cps_spawn_in(argv[0], arguments, envp, stem + ".out", stem + ".err", 1, nil, &pid) == 0 else {
      return Output(status: nil, stdout: "", stderr: "cannot start \(argv[0])")
    }
    let end = ProcessLauncher.wait(pid, timeout: timeout, ticking: false)
    let read = { (suffix: String) in
      FileManager.default.contents(atPath: stem + suffix).map { String(decoding: $0, as: UTF8.self) } ?? ""
    }
    switch end {
    case .exited(let code): return Output(status: code, stdout: read(".out"), stderr: read(".err"))
    case .signaled, .timedOut:
      return Output(
        status: nil, stdout: read(".out"), stderr: read(".err") + "\n\(argv.joined(separator: " ")): \(end)")
    }
  }

  /// The absolute path of `name` on PATH or in the sbin folders.
  static func find(_ name: String) -> String? { RuntimeCommand.find(name) }
}
