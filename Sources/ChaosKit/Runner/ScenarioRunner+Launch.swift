import Failpoints
import Foundation

/// One launch of a scenario: its processes spawned, watched until they end, and judged.
extension ScenarioRunner {
  /// `stoppedEarlier`: the pids the harness stopped as daemons in the launch before, with its
  /// number; this launch must not count them.
  func runLaunch(
    _ scenario: Scenario, _ spec: LaunchSpec, number: Int, iteration: Int, target: String, workDirectory: String,
    stateDirectory: String, stoppedEarlier: [pid_t: Int],
    restart: (number: Int, delay: Double, previous: ProcessResult)?, dependency: DependencyServer?,
    judge: LaunchJudge?
  ) -> [ProcessResult] {
    var label = "launch-\(number)"
    if spec.repeatCount > 1 { label += "-r\(iteration)" }
    let timeout = spec.timeoutSeconds ?? scenario.timeoutSeconds
    var started: [(pid: pid_t, directory: String, process: Int, spawned: UInt64)] = []
    var supervisors: [SupervisorSession] = []
    var sessions: [pid_t: RequestSession] = [:]
    var requestResults: [pid_t: [RequestResult]] = [:]
    var daemonStops: [pid_t: DaemonStop] = [:]
    var kubelets: [pid_t: KubeletSession] = [:]
    var containers: [pid_t: RuntimeContainer] = [:]
    var results: [ProcessResult] = []
    let directories = (1...spec.parallel).map { workDirectory + "/" + label + (spec.parallel > 1 ? "-p\($0)" : "") }
    for process in 1...spec.parallel {
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
          containers[pid] = container
        }
        started.append((pid, directory, process, MonotonicClock.nanoseconds()))
        if let kubelet = scenario.kubelet {
          let session = KubeletSession(
            spec: kubelet, port: port, environment: environment, eventsPath: eventsPath, directory: directory)
          session.started(pid)
          kubelets[pid] = session
        }
        if let supervisor {
          supervisor.started(pid)
          supervisors.append(supervisor)
        }
        // A launch with its own `send_signal` is the scenario's to end.
        if let daemon = scenario.daemon, spec.sendSignal == nil {
          daemonStops[pid] = DaemonStop(spec: daemon, pid: pid, eventsPath: directory + "/events.ndjson")
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
          sessions[pid] = session
        }
      } catch {
        results.append(
          ProcessResult(
            launch: number, line: spec.line, iteration: iteration, process: process, pid: 0, end: nil,
            outcome: nil,
            relaunched: false, durationMilliseconds: 0, artifacts: directory,
            failures: [ScenarioFailure(.notStarted, "\(error)")]))
      }
    }
    // Wait for all; each has its own watchdog deadline measured from its spawn.
    var ends: [pid_t: (ProcessEnd, UInt64)] = [:]
    var signalledAt: [pid_t: UInt64] = [:]
    var endings: [pid_t: RuntimeContainer.Ending] = [:]
    for child in started {
      var signalled = false
      let elapsed = Double(MonotonicClock.nanoseconds() - child.spawned) / 1e9
      let waited = RunProfile.start()
      defer { RunProfile.add("wait for the process (reaped)", since: waited) }
      let ticking = !supervisors.isEmpty || !kubelets.isEmpty || !daemonStops.isEmpty || spec.sendSignal != nil
      // The watchdog's deadline, or the run's cutoff when that comes first.
      let left = min(timeout - elapsed, options.secondsToCutoff)
      let end = ProcessLauncher.wait(child.pid, timeout: max(0.001, left), ticking: ticking) {
        for supervisor in supervisors { supervisor.tick() }
        kubelets[child.pid]?.tick()
        daemonStops[child.pid]?.tick(requestsDone: sessions[child.pid]?.isDone ?? true)
        // `send_signal` waits until the launch's requests are done.
        guard let delivery = spec.sendSignal, !signalled, sessions[child.pid]?.isDone ?? true else { return }
        if EventPeek.contains(delivery.afterEvent, path: child.directory + "/events.ndjson") {
          signalledAt[child.pid] = MonotonicClock.nanoseconds()
          if !ContainerRegistry.shared.signal(child.pid, delivery.signal) { kill(child.pid, delivery.signal) }
          signalled = true
        }
      }
      ends[child.pid] = (end, MonotonicClock.nanoseconds())
      if let container = containers[child.pid] {
        let ending = container.finish(end)
        Self.recordEnding(ending, of: container, eventsPath: child.directory + "/events.ndjson")
        endings[child.pid] = ending
      }
      supervisors.first { $0.pid == child.pid }?.finish()
      kubelets[child.pid]?.finish()
      if let session = sessions[child.pid] {
        session.targetEnded(end)
        requestResults[child.pid] = session.finish()
      }
    }
    var spec = spec
    let judged = RunProfile.start()
    defer { RunProfile.add("events read, judged and checked", since: judged) }
    if let judge,
      let expect = judge.expect(
        number, started.map { (try? EventDecoder.decode(path: $0.directory + "/events.ndjson").events) ?? [] },
        started.map { signalledAt[$0.pid] })
    {
      spec.expect = expect
    }
    for child in started {
      let (end, reaped) = ends[child.pid]!
      var result = observe(
        end, pid: child.pid, directory: child.directory, spec: spec, number: number, iteration: iteration,
        process: child.process, stateDirectory: stateDirectory,
        stoppedByHarness: daemonStops[child.pid]?.stopped ?? false,
        stoppedEarlier: stoppedEarlier, span: (child.spawned, reaped), kubelet: scenario.kubelet,
        restartDelay: restart?.delay, container: endings[child.pid])
      result.failures += (endings[child.pid]?.problems ?? []).map { ScenarioFailure(.notStarted, $0) }
      if let requests = requestResults[child.pid] {
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
