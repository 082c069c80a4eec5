import Foundation
import Synchronization

/// One launch as a container of a real OCI runtime (runc): the harness writes its
/// bundle, starts `runc run --keep` in the foreground (runc's exit status is the container's:
/// 128 + N for a death by signal N), stops it through `runc kill`, and once runc exited reads
/// the cgroup for OOM kills, deletes the container and removes the bundle.
final class RuntimeContainer: Sendable {
  /// Why a container could not be made or started.
  struct Failure: Error, CustomStringConvertible {
    var description: String
  }

  /// What became of the container.
  struct Ending {
    /// The kernel's OOM killer killed a process of its memory cgroup.
    var oomKilled = false
    /// The runtime failed before the target ran (its message), or a leak (container, cgroup
    /// or mount left behind): the launch fails with it.
    var problems: [String] = []
  }

  let id: String
  let runtime: RuntimeSettings.Runtime
  let executable: String
  let cgroupsPath: String
  private let bundle: Mutex<OCIBundle>
  private let ended = Mutex<Ending?>(nil)

  /// Creates the bundle for running `arguments` with `environment`; the state directory and
  /// the launch's folder are its read-write volumes.
  init(
    settings: RuntimeSettings, arguments: [String], environment: [String: String], volumes: [String]
  ) throws(Failure) {
    runtime = settings.runtime ?? .runc
    guard let executable = RuntimeCommand.find(runtime.rawValue) else {
      throw Failure(description: "\(runtime.rawValue) is not installed (apt-get install \(runtime.rawValue))")
    }
    self.executable = executable
    id = ContainerRegistry.shared.newID()
    cgroupsPath = "/" + id
    // The runtime looks a relative argv[0] up on the container's PATH: give it the host's path.
    var arguments = arguments
    if !arguments[0].hasPrefix("/") { arguments[0] = FileManager.default.currentDirectoryPath + "/" + arguments[0] }
    var command = arguments
    if let initProcess = settings.initProcess {
      guard let initPath = RuntimeCommand.find(initProcess.rawValue) else {
        throw Failure(
          description: "init: \(initProcess.rawValue) is not installed (apt-get install \(initProcess.rawValue))")
      }
      // As `docker run --init`: the init is PID 1, forwards signals to the target and exits
      // as the target did (128 + N for a death by signal N).
      command = initProcess == .tini ? [initPath, "--"] + arguments : [initPath] + arguments
    }
    let config = OCIConfig(
      arguments: command, environment: environment, workingDirectory: FileManager.default.currentDirectoryPath,
      volumes: volumes, readOnlyVolumes: [URL(fileURLWithPath: arguments[0]).deletingLastPathComponent().path],
      cgroupsPath: cgroupsPath, memoryBytes: settings.memoryBytes, pids: settings.pids)
    bundle = Mutex(OCIBundle(id: id))
    guard ContainerRegistry.shared.add(self) else { throw Failure(description: "interrupted") }
    do {
      try bundle.withLock { (bundle: inout OCIBundle) throws(OCIBundle.Failure) in
        try bundle.create(config: config.json)
      }
    } catch {
      _ = bundle.withLock { $0.remove() }
      ContainerRegistry.shared.remove(self)
      throw Failure(description: "\(runtime.rawValue) bundle: \(error)")
    }
    // A copy beside the launch's artifacts (its folder is the last volume), for whoever reads a failure.
    if let folder = volumes.last {
      try? FileManager.default.copyItem(
        atPath: OCIBundle(id: id).directory + "/config.json", toPath: folder + "/config.json")
    }
  }

  /// `runc run --keep --bundle … <id>`: the process the harness spawns and waits for. `--keep`
  /// leaves the stopped container (and its cgroup) for `finish` to read before it deletes it.
  func launcher(stdoutPath: String, stderrPath: String) -> ProcessLauncher {
    ProcessLauncher(
      executable: executable,
      arguments: ["run", "--keep", "--bundle", bundle.withLock { $0.directory }, id],
      environment: ["PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/sbin:/usr/bin:/sbin:/bin"],
      stdoutPath: stdoutPath, stderrPath: stderrPath)
  }

  /// `runc kill <id> <signal>`, as a runtime stops a container (false: it failed, e.g. the
  /// container is gone already).
  @discardableResult
  func signal(_ signal: Int32) -> Bool {
    RuntimeCommand.run(executable, ["kill", id, String(signal)]).status == 0
  }

  /// The runtime's folder for the container (`runc list` lists these); `state.json` in it once
  /// the container was created. A failed `runc run` can leave the folder empty.
  var stateDirectory: String { "/run/\(runtime.rawValue)/\(id)" }

  /// Reads the cgroup, deletes the container (`runc delete -f`, which also kills whatever is
  /// left in it), removes the bundle and checks nothing is left. `end` is how the runtime
  /// process ended. Runs once; a second call (an interrupt meanwhile) returns the first's result.
  @discardableResult
  func finish(_ end: ProcessEnd?) -> Ending {
    ended.withLock { ended in
      if let ended { return ended }
      var ending = Ending()
      let created = access(stateDirectory + "/state.json", F_OK) == 0
      if let end, end != .exited(0), !created {
        ending.problems.append(
          "\(runtime.rawValue) run ended \(end) without creating container \(id): the runtime failed (see stderr)")
      }
      if end == .timedOut || end == nil { signal(SIGKILL) }
      // The OOM killer sends SIGKILL: runc reports 137. Read before the delete removes the cgroup.
      if end == .exited(137), (CgroupReader.oomKills(cgroupsPath) ?? 0) > 0 { ending.oomKilled = true }
      if access(stateDirectory, F_OK) == 0 {
        let deleted = RuntimeCommand.run(executable, ["delete", "-f", id])
        if deleted.status != 0 {
          ending.problems.append("\(runtime.rawValue) delete -f \(id) failed: \(deleted.stderr)")
        }
      }
      if access(stateDirectory, F_OK) == 0 {
        ending.problems.append("container \(id) left behind in \(stateDirectory)")
      }
      if let problem = bundle.withLock({ $0.remove() }) { ending.problems.append(problem) }
      for directory in CgroupReader.directories(cgroupsPath) where rmdir(directory) != 0 {
        ending.problems.append("cgroup \(directory) left behind: \(String(cString: strerror(errno)))")
      }
      ContainerRegistry.shared.remove(self)
      ended = ending
      return ending
    }
  }
}
