import Failpoints
import Foundation

/// A throwaway systemd: this machine's own image booted by `systemd-nspawn --volatile=yes`
/// (a tmpfs root, `/usr` from the host), with the scenario's units, the target, the Swift
/// runtime, the work directory as `/out` and a persistent `/var/lib`. Commands reach it through
/// `nsenter` into its PID 1, since `--register=no` leaves `machinectl` and `--machine` out.
final class SystemdMachine: @unchecked Sendable {
  /// `chaos-<harness pid>-<n>`: the machine's name, and its boot target's
  /// (`systemd.unit=<id>.target` on its PID 1's command line, which the stale sweep reads).
  let id: String
  /// Holds `units/` (the container's `/etc/systemd/system`), `var-lib/` and the console log.
  let folder: String
  private let binds: [String]
  private let bootTimeout: Double
  private let lock = NSLock()
  private var nspawn: pid_t = 0
  private var leader: pid_t = 0

  struct Failure: Error, CustomStringConvertible {
    var description: String
  }

  /// `binds`: nspawn's `--bind`/`--bind-ro` options besides the units and `/var/lib`.
  init(id: String, folder: String, binds: [String], bootTimeout: Double) {
    self.id = id
    self.folder = folder
    self.binds = binds
    self.bootTimeout = bootTimeout
  }

  var unitsDirectory: String { folder + "/units" }
  var varLib: String { folder + "/var-lib" }

  /// Boots it and waits until its boot target (basic.target and nothing more) is active.
  func boot() throws(Failure) {
    try? FileTree.makeDirectories(unitsDirectory)
    try? FileTree.makeDirectories(varLib)
    // The boot target: basic.target and nothing else, so the boot is short and starts no unit of ours.
    let target = "[Unit]\nDescription=LaunchChaos \(id)\nRequires=basic.target\nAfter=basic.target\n"
    _ = FileManager.default.createFile(atPath: "\(unitsDirectory)/\(id).target", contents: Data(target.utf8))
    guard let program = MachineCommand.find("systemd-nspawn") else { throw Failure(description: "no systemd-nspawn") }
    let arguments =
      [
        "-D", "/", "--volatile=yes", "--private-network", "--register=no", "--keep-unit", "--console=read-only",
        "--machine=\(id)", "--bind=\(unitsDirectory):/etc/systemd/system", "--bind=\(varLib):/var/lib",
      ] + binds + ["--boot", "--", "systemd.unit=\(id).target", "systemd.firstboot=off"]
    // Kept with the artifacts: how to boot the same machine by hand.
    let command = ([program] + arguments).joined(separator: " ") + "\n"
    _ = FileManager.default.createFile(atPath: folder + "/nspawn-command.txt", contents: Data(command.utf8))
    let launcher = ProcessLauncher(
      executable: program, arguments: arguments, environment: ["PATH": "/usr/sbin:/usr/bin:/sbin:/bin"],
      stdoutPath: folder + "/console.txt", stderrPath: folder + "/console.txt")
    guard SystemdMachines.shared.add(self) else { throw Failure(description: "interrupted") }
    let pid: pid_t
    do { pid = try launcher.spawn() } catch { throw Failure(description: "systemd-nspawn: \(error)") }
    lock.withLock { nspawn = pid }
    let deadline = MonotonicClock.nanoseconds() + UInt64(bootTimeout * 1e9)
    var state = ""
    while MonotonicClock.nanoseconds() < deadline, !ChildRegistry.shared.isCancelled {
      if waitpid(pid, nil, WNOHANG) == pid {
        lock.withLock { nspawn = 0 }
        throw Failure(description: "systemd-nspawn ended during the boot: \(consoleTail)")
      }
      // The container's PID 1: among nspawn's children, the one that runs systemd with this
      // machine's boot target and is PID 1 of its namespace (its forks share the command line
      // until they exec). Looked up again whenever the one found is gone.
      if containerLeader == 0 || Glibc.kill(containerLeader, 0) != 0 {
        let found = Self.children(of: pid).first { SystemdMachines.bootTarget(of: $0) == id && Self.isPidOne($0) }
        lock.withLock { leader = found ?? 0 }
      }
      if containerLeader != 0 {
        // Booted when the boot target is active: the units it needs ran (others may still start).
        let asked = run(["systemctl", "is-active", "\(id).target"])
        state = asked.said
        if asked.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "active" { return }
      }
      usleep(100_000)
    }
    stop()
    throw Failure(
      description: "the container did not boot within \(Int(bootTimeout)) s (the last check said '\(state)'): "
        + consoleTail)
  }

  /// Its PID 1, as the host sees it (0: not booted).
  var containerLeader: pid_t { lock.withLock { leader } }

  /// Runs a command inside (`nsenter -t <PID 1> -a`).
  func run(_ argv: [String], timeout: Double = 20) -> MachineCommand.Output {
    let leader = containerLeader
    guard leader != 0, let nsenter = MachineCommand.find("nsenter") else {
      return MachineCommand.Output(status: nil, stdout: "", stderr: "the container is not running")
    }
    return MachineCommand.run([nsenter, "-t", String(leader), "-a"] + argv, folder: folder, timeout: timeout)
  }

  /// Powers it off (SIGTERM to nspawn: a clean shutdown, up to 15 s), then kills what is left:
  /// PID 1 (the kernel ends its whole PID namespace with it) and nspawn's group.
  func stop() {
    let nspawn = lock.withLock { self.nspawn }
    if nspawn != 0 {
      Glibc.kill(nspawn, SIGTERM)
      // Reaped either way: past the time, its group was SIGKILLed.
      _ = ProcessLauncher.wait(nspawn, timeout: 15, ticking: false)
      lock.withLock { self.nspawn = 0 }
    }
    kill()
  }

  /// SIGKILLs PID 1 and nspawn's group now (an interrupt).
  func kill() {
    let (nspawn, leader) = lock.withLock { (self.nspawn, self.leader) }
    // Killing nspawn alone leaves the container's PID 1 running in its own session. Only
    // while that pid is still this machine's PID 1: after a clean shutdown it may be reused.
    if leader != 0, SystemdMachines.bootTarget(of: leader) == id { Glibc.kill(leader, SIGKILL) }
    if nspawn != 0 {
      Glibc.kill(-nspawn, SIGKILL)
      waitpid(nspawn, nil, 0)
      ChildRegistry.shared.unregister(nspawn)
    }
    lock.withLock {
      self.nspawn = 0
      self.leader = 0
    }
    SystemdMachines.shared.remove(self)
  }

  private var consoleTail: String {
    let text = FileManager.default.contents(atPath: folder + "/console.txt").map { String(decoding: $0, as: UTF8.self) }
    return (text ?? "").split(separator: "\n").suffix(3).joined(separator: "; ")
  }

  /// Whether `pid` is PID 1 of its own PID namespace (the last field of `NSpid:` in its status).
  private static func isPidOne(_ pid: pid_t) -> Bool {
    let status = SystemdMachines.readProcFile("/proc/\(pid)/status").map { String(decoding: $0, as: UTF8.self) }
    let line = status?.split(separator: "\n").first { $0.hasPrefix("NSpid:") }
    return line?.split(whereSeparator: { $0 == " " || $0 == "\t" }).last == "1"
  }

  /// The children of `pid`: while the container starts, nspawn's outer child and its PID 1.
  private static func children(of pid: pid_t) -> [pid_t] {
    let text = SystemdMachines.readProcFile("/proc/\(pid)/task/\(pid)/children")
      .map { String(decoding: $0, as: UTF8.self) }
    return (text ?? "").split(separator: " ").compactMap { pid_t($0) }
  }
}
