import Failpoints
import Foundation

/// One launch of a scenario: its processes spawned, watched until they end, and judged.
extension ScenarioRunner {
  /// Runs `launch`: starts its processes, waits for each, and judges what each showed.
  func runLaunch(_ launch: LaunchRun) -> [ProcessResult] {
    var processes = LaunchProcesses()
    let spec = launch.spec
    let directories = (1...spec.parallel).map {
      launch.workDirectory + "/" + launch.label + (spec.parallel > 1 ? "-p\($0)" : "")
    }
    for process in 1...spec.parallel {
      startProcess(process, directories: directories, of: launch, into: &processes)
    }
    waitForProcesses(of: launch, &processes)
    return judgeProcesses(of: launch, processes)
  }

  /// Starts process `process` of the launch in its folder, with what watches it (supervisor,
  /// kubelet, daemon stop, requests); one that cannot start is judged at once.
  private func startProcess(
    _ process: Int, directories: [String], of launch: LaunchRun, into processes: inout LaunchProcesses
  ) {
    let (scenario, spec, number, iteration) = (launch.scenario, launch.spec, launch.number, launch.iteration)
    let (target, stateDirectory, dependency, restart) =
      (launch.target, launch.stateDirectory, launch.dependency, launch.restart)
    let directory = directories[process - 1]
    var profiled = RunProfile.start()
    try? FileTree.makeDirectories(directory)
    // A free port for the target to serve on, if it serves (`CHAOS_PORT`; `http:` requests go there).
    let port = HTTPProbe.freePort()
    var environment = environment(
      scenario, spec, events: directory + "/events.ndjson", state: stateDirectory, port: port,
      dependencyPort: dependency?.port)
    RunProfile.add("launch set-up (folder, port, environment)", since: profiled)
    do {
      // Once per launch, before its first process: every process finds the same.
      if let dependency, process == 1 { try setDependency(dependency, spec, directories: directories) }
      let supervisor = try scenario.supervisor.map { spec throws(SupervisorSession.Failure) in
        try SupervisorSession(spec: spec, eventsPath: directory + "/events.ndjson")
      }
      if let supervisor { environment.merge(supervisor.environment) { $1 } }
      var launcher = ProcessLauncher(
        executable: target, environment: environment, stdoutPath: directory + "/stdout.txt",
        stderrPath: directory + "/stderr.txt")
      launcher.container = spec.container ?? scenario.container
      if let user = spec.user {
        // Another user's process writes its events to a file the harness made for it.
        launcher.user = user
        _ = FileManager.default.createFile(atPath: directory + "/events.ndjson", contents: nil)
        chown(directory + "/events.ndjson", user.uid, user.gid)
      }
      let container = try runtimeContainer(
        scenario, spec, target: target, environment: environment, stateDirectory: stateDirectory,
        directory: directory)
      if let container {
        launcher = container.launcher(stdoutPath: launcher.stdoutPath, stderrPath: launcher.stderrPath)
      }
      let eventsPath = directory + "/events.ndjson"
      if let restart {
        let fields: [String: Any] = [
          "event": "supervisor", "action": "restart", "reason": "back-off", "restart": restart.number,
          "delay_ms": Int((restart.delay * 1000).rounded()),
        ]
        HarnessEvent.append(
          fields.merging(KubeletLastState.fields(restart.previous)) { $1 }, pid: 0, to: eventsPath, source: "kubelet")
      }
      let pid: pid_t
      profiled = RunProfile.start()
      do { pid = try launcher.spawn() } catch {
        container?.finish(nil)
        throw error
      }
      RunProfile.add("spawn (vfork + exec)", since: profiled)
      if let container {
        ContainerRegistry.shared.started(container, pid: pid)
        processes.containers[pid] = container
      }
      processes.started.append((pid, directory, process, MonotonicClock.nanoseconds()))
      if let kubelet = scenario.kubelet {
        let session = KubeletSession(
          spec: kubelet, port: port, environment: environment, eventsPath: eventsPath, directory: directory)
        session.started(pid)
        processes.kubelets[pid] = session
      }
      if let supervisor {
        supervisor.started(pid)
        processes.supervisors.append(supervisor)
      }
      // A launch with its own `send_signal` is the scenario's to end.
      if let daemon = scenario.daemon, spec.sendSignal == nil {
        processes.daemonStops[pid] = DaemonStop(spec: daemon, pid: pid, eventsPath: directory + "/events.ndjson")
      }
      if !spec.requests.isEmpty {
        let session = RequestSession(
          steps: spec.requests,
          context: RequestSession.Context(
            pid: pid, port: port, environment: environment, eventsPath: directory + "/events.ndjson",
            directory: directory,
            scenarioFolder: URL(fileURLWithPath: scenario.path).deletingLastPathComponent().path,
            cutoff: options.cutoff))
        session.start()
        processes.sessions[pid] = session
      }
    } catch {
      processes.results.append(
        ProcessResult(
          launch: number, line: spec.line, iteration: iteration, process: process, pid: 0, end: nil,
          outcome: nil,
          relaunched: false, durationMilliseconds: 0, artifacts: directory,
          failures: [ScenarioFailure(.notStarted, "\(error)")]))
    }
  }

  /// Waits for each started process; each has its own watchdog deadline measured from its
  /// spawn, and its watchers tick meanwhile.
  private func waitForProcesses(of launch: LaunchRun, _ processes: inout LaunchProcesses) {
    let (scenario, spec) = (launch.scenario, launch.spec)
    let timeout = spec.timeoutSeconds ?? scenario.timeoutSeconds
    for child in processes.started {
      var signalled = false
      let elapsed = Double(MonotonicClock.nanoseconds() - child.spawned) / 1e9
      let waited = RunProfile.start()
      defer { RunProfile.add("wait for the process (reaped)", since: waited) }
      let ticking =
        !processes.supervisors.isEmpty || !processes.kubelets.isEmpty || !processes.daemonStops.isEmpty
        || spec.sendSignal != nil
      // The watchdog's deadline, or the run's cutoff when that comes first.
      let left = min(timeout - elapsed, options.secondsToCutoff)
      let end = ProcessLauncher.wait(child.pid, timeout: max(0.001, left), ticking: ticking) {
        for supervisor in processes.supervisors { supervisor.tick() }
        processes.kubelets[child.pid]?.tick()
        processes.daemonStops[child.pid]?.tick(requestsDone: processes.sessions[child.pid]?.isDone ?? true)
        // `send_signal` waits until the launch's requests are done.
        guard let delivery = spec.sendSignal, !signalled, processes.sessions[child.pid]?.isDone ?? true else { return }
        if EventPeek.contains(delivery.afterEvent, path: child.directory + "/events.ndjson") {
          processes.signalledAt[child.pid] = MonotonicClock.nanoseconds()
          if !ContainerRegistry.shared.signal(child.pid, delivery.signal) { kill(child.pid, delivery.signal) }
          signalled = true
        }
      }
      processes.ends[child.pid] = (end, MonotonicClock.nanoseconds())
      if let container = processes.containers[child.pid] {
        let ending = container.finish(end)
        Self.recordEnding(ending, of: container, eventsPath: child.directory + "/events.ndjson")
        processes.endings[child.pid] = ending
      }
      processes.supervisors.first { $0.pid == child.pid }?.finish()
      processes.kubelets[child.pid]?.finish()
      if let session = processes.sessions[child.pid] {
        session.targetEnded(end)
        processes.requestResults[child.pid] = session.finish()
      }
    }
  }

  /// Judges what each process showed against the launch's expectations (re-decided by the
  /// judge of `chaos explore`, if any), with its requests' results.
  private func judgeProcesses(of launch: LaunchRun, _ processes: LaunchProcesses) -> [ProcessResult] {
    let (scenario, number, iteration, judge) = (launch.scenario, launch.number, launch.iteration, launch.judge)
    let (stateDirectory, stoppedEarlier, restart) = (launch.stateDirectory, launch.stoppedEarlier, launch.restart)
    var results = processes.results
    var spec = launch.spec
    let judged = RunProfile.start()
    defer { RunProfile.add("events read, judged and checked", since: judged) }
    if let judge,
      let expect = judge.expect(
        number,
        processes.started.map { (try? EventDecoder.decode(path: $0.directory + "/events.ndjson").events) ?? [] },
        processes.started.map { processes.signalledAt[$0.pid] })
    {
      spec.expect = expect
    }
    for child in processes.started {
      let (end, reaped) = processes.ends[child.pid]!
      var result = observe(
        end, pid: child.pid, directory: child.directory, spec: spec, number: number, iteration: iteration,
        process: child.process, stateDirectory: stateDirectory,
        stoppedByHarness: processes.daemonStops[child.pid]?.stopped ?? false,
        stoppedEarlier: stoppedEarlier, span: (child.spawned, reaped), kubelet: scenario.kubelet,
        restartDelay: restart?.delay, container: processes.endings[child.pid])
      result.failures += (processes.endings[child.pid]?.problems ?? []).map { ScenarioFailure(.notStarted, $0) }
      if let requests = processes.requestResults[child.pid] {
        result.requests = requests
        result.failures += requests.compactMap { request in
          guard !spec.requests.indices.contains(request.index - 1) || !spec.requests[request.index - 1].optional else {
            return nil
          }
          return request.failure.map {
            ScenarioFailure(.request, "request \(request.index) \(request.label) (line \(request.line)): \($0)")
          }
        }
      }
      results.append(result)
    }
    return results.sorted { $0.process < $1.process }
  }
}
