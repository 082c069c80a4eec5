import Foundation
import Synchronization

/// Whether a real OCI runtime can run containers on this machine, found once per runtime and
/// init by running `/bin/true` in one: where it cannot (not root, not installed, no cgroups, a
/// seccomp or AppArmor policy that forbids it), the scenario is an error that says why (without
/// root and CAP_SYS_ADMIN it is skipped before this probe: `checkPrivileges`).
enum RuntimeSupport {
  /// Each probe's answer, by runtime and init. Held while a probe runs: two scenarios that
  /// asked at once both probed, in one folder, and the first to finish removed it under the
  /// other (`cannot start runc: No such file or directory`, under `CI/suite-repeat --load`).
  private static let found = Mutex<[String: String?]>([:])

  /// Why `settings` cannot run here (nil: they can).
  static func problem(_ settings: RuntimeSettings) -> String? {
    guard let runtime = settings.runtime else { return nil }
    _ = StaleContainers.swept
    let key = runtime.rawValue + "/" + (settings.initProcess?.rawValue ?? "")
    return found.withLock { found in
      if let known = found[key] { return known }
      let problem = probe(settings, runtime: runtime)
      found[key] = problem
      return problem
    }
  }

  private static let guidance =
    "it needs root with CAP_SYS_ADMIN, cgroups and no seccomp or AppArmor policy forbidding mounts "
    + "(docker run --privileged; GitHub Actions: container.options: --privileged)"

  private static func probe(_ settings: RuntimeSettings, runtime: RuntimeSettings.Runtime) -> String? {
    let name = "runtime: \(runtime.rawValue)"
    guard geteuid() == 0 else {
      return "\(name) needs root (the runtime makes namespaces, cgroups and a bind mount): run chaos as root, "
        + "or in a privileged container (docker run --privileged; GitHub Actions: container.options: --privileged)"
    }
    for program in [runtime.rawValue] + (settings.initProcess.map { [$0.rawValue] } ?? [])
    where RuntimeCommand.find(program) == nil {
      return "\(name): \(program) is not installed (CI/setup installs it: apt-get install \(program))"
    }
    guard access(CgroupReader.root, F_OK) == 0 else { return "\(name): no cgroup file system at /sys/fs/cgroup" }
    let folder = "\(OCIBundle.parent)/probe-\(getpid())-\(runtime.rawValue)"
    mkdir(OCIBundle.parent, 0o700)
    mkdir(folder, 0o700)
    defer {
      unlink(folder + "/config.json")
      unlink(folder + "/out.txt")
      rmdir(folder)
    }
    var probeSettings = settings
    probeSettings.memoryBytes = 16 << 20
    do {
      let container = try RuntimeContainer(
        settings: probeSettings, arguments: ["/bin/true"], environment: ["PATH": "/usr/bin:/bin"], volumes: [folder])
      var launcher = container.launcher(stdoutPath: folder + "/out.txt", stderrPath: folder + "/out.txt")
      launcher.environment["PATH"] = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/sbin:/usr/bin:/sbin:/bin"
      let pid: pid_t
      do { pid = try launcher.spawn() } catch {
        container.finish(nil)
        return "\(name): \(error)"
      }
      let end = ProcessLauncher.wait(pid, timeout: 20, ticking: false)
      let ending = container.finish(end)
      let output = FileManager.default.contents(atPath: folder + "/out.txt").map { String(decoding: $0, as: UTF8.self) }
      guard end == .exited(0), ending.problems.isEmpty else {
        let said = ((output ?? "").split(separator: "\n").suffix(2).map(String.init) + ending.problems)
        return "\(name) cannot run a container here (\(end); \(said.joined(separator: "; "))): " + guidance
      }
      return nil
    } catch {
      return "\(name) cannot run a container here (\(error)): " + guidance
    }
  }
}
