import Failpoints
import Foundation

/// Runs one scenario: a fresh state directory, its launches in order, each process spawned
/// with the protocol's environment, its events decoded and its expectations checked.
public struct ScenarioRunner: Sendable {
  /// Options in force.
  public var options: RunOptions
  let symbolizer = Symbolizer()
  /// Where a passed scenario's work directory goes; nil: removed before `run` returns.
  package var sweeper: Sweeper?

  /// Creates a runner.
  public init(options: RunOptions) { self.options = options }

  /// Runs the scenario; `round` numbers repeats of the whole scenario (`--repeat`).
  public func run(_ scenario: Scenario, round: Int = 1) -> ScenarioResult {
    run(scenario, round: round, judge: nil)
  }

  /// Runs the scenario, letting `judge` re-decide each launch's expectations from what its
  /// processes showed before they are checked (`chaos explore`).
  package func run(_ scenario: Scenario, round: Int = 1, judge: LaunchJudge?) -> ScenarioResult {
    let started = Date()
    let suffix = options.repeatCount > 1 ? "-r\(round)" : ""
    let workDirectory = "\(options.artifactsDirectory)/\(scenario.group)-\(scenario.identifier)\(suffix)"
    var result = ScenarioResult(
      path: scenario.path, name: scenario.name, group: scenario.group, status: .passed, messages: [], processes: [],
      seconds: 0, artifacts: workDirectory)
    var profiled = RunProfile.start()
    FileTree.remove(workDirectory)
    var services: ScenarioServices?
    do {
      try checkPrivileges(scenario)
      if sweeper?.reuse(as: workDirectory) != true { try FileTree.makeDirectories(workDirectory) }
      var target = try resolveTarget(scenario)
      try checkUserReach(scenario, target: target, workDirectory: workDirectory)
      try checkFailpointNames(scenario, target: target)
      try checkContainerSupport(scenario)
      try checkRuntimeSupport(scenario)
      let stateDirectory = workDirectory + "/state"
      // A real systemd for the whole run, stopped when the run ends however it ends.
      let systemd = try startSystemd(scenario, target: target, workDirectory: workDirectory)
      defer { systemd?.machine.stop() }
      // The scenario's dependency listens for the whole run, on one port; closed at the end.
      let dependency = try startDependency(scenario)
      defer { dependency?.close() }
      // `services:` run for the whole run, ready before the first launch, stopped after the
      // last whatever ended the run (below); launches get their ports as CHAOS_SERVICE_*.
      services = try ScenarioServices.start(scenario, workDirectory: workDirectory, stateDirectory: stateDirectory)
      var scenario = scenario
      scenario.environment.merge(services?.variables ?? [:]) { $1 }
      // The protocol promises an existing, empty state directory when a scenario starts.
      try FileTree.makeDirectories(stateDirectory)
      RunProfile.add("scenario start (folders, target, failpoint names)", since: profiled)
      var stoppedEarlier: [pid_t: Int] = [:]
      var restarts = KubeletRestarts()
      launches: for (index, spec) in scenario.launches.enumerated() {
        let number = index + 1
        if options.isCut {
          result.cutAtLaunch = number
          break launches
        }
        let setupStarted = RunProfile.start()
        do {
          for action in judge?.setup(number) ?? spec.before {
            if case .newBinary = action { target = try copyBinary(target, into: workDirectory + "/bin-\(number)") }
            try Setup.apply(action, stateDirectory: stateDirectory)
          }
        } catch {
          // Named at the launch that asked for it: the scenario file's line, the cause after it.
          throw ScenarioError(
            path: scenario.path, line: spec.line, column: 1,
            message: "launch \(number), before: \(error.line == 0 ? error.path + ": " : "")\(error.message)")
        }
        RunProfile.add("before: state edits, new binary copies", since: setupStarted)
        try services?.apply(spec.services, scenario: scenario, launch: number)
        for iteration in 1...spec.repeatCount {
          var restart: (number: Int, delay: Double, previous: ProcessResult)?
          if let kubelet = scenario.kubelet, let previous = result.processes.last {
            switch restarts.next(after: previous, spec: kubelet) {
            case .restart(let number, let delay):
              restart = (number, delay, previous)
              if !KubeletRestarts.sleep(delay) { break launches }
            case .none(let why):
              result.status = .failed
              result.messages.append("\(scenario.path): launch \(number) (line \(spec.line)): \(why)")
              result.failures.append(ScenarioFailure(.noRestart, why))
              break launches
            }
          }
          let processes =
            systemd.map {
              [runSystemdLaunch($0, scenario, spec, number: number, target: target, stoppedEarlier: stoppedEarlier)]
            }
            ?? runLaunch(
              scenario, spec, number: number, iteration: iteration, target: target, workDirectory: workDirectory,
              stateDirectory: stateDirectory, stoppedEarlier: stoppedEarlier, restart: restart, dependency: dependency,
              judge: judge)
          result.processes += processes
          // Killed at the cutoff: what it showed is not what it would have done, so it is not judged.
          if options.isCut, processes.contains(where: { $0.end == .timedOut }) {
            result.cutAtLaunch = number
            break launches
          }
          stoppedEarlier = Dictionary(
            processes.filter(\.stoppedByHarness).map { ($0.targetPid ?? $0.pid, number) }, uniquingKeysWith: { $1 })
          for process in processes where !process.failures.isEmpty {
            result.status = .failed
            var place = "launch \(number) (line \(spec.line)"
            if spec.repeatCount > 1 { place += ", repeat \(iteration) of \(spec.repeatCount)" }
            if spec.parallel > 1 { place += ", process \(process.process) of \(spec.parallel)" }
            place += ", pid \(process.pid))"
            let stderrTail = Self.tail(of: process.artifacts + "/stderr.txt", lines: 8)
            for failure in process.failures {
              var message = "\(scenario.path): \(place): \(failure)"
              if !stderrTail.isEmpty {
                message += "\n  stderr (last lines):\n" + stderrTail.map { "    " + $0 }.joined(separator: "\n")
              }
              message += "\n  artifacts: \(process.artifacts)/{stdout.txt,stderr.txt,events.ndjson}"
              result.messages.append(message)
              result.failures.append(failure)
            }
          }
          if result.status != .passed || ChildRegistry.shared.isCancelled { break launches }
        }
      }
      if ChildRegistry.shared.isCancelled, result.status == .passed {
        result.status = .error
        result.messages.append("\(scenario.path): interrupted")
      }
    } catch {
      result.couldNotRun(error)
    }
    for problem in services?.stopAll() ?? [] {
      if result.status == .passed { result.status = .failed }
      result.messages.append("\(scenario.path): \(problem)")
    }
    result.seconds = Date().timeIntervalSince(started)
    profiled = RunProfile.start()
    if result.passed && !options.keepArtifacts {
      if let sweeper { sweeper.sweep(workDirectory) } else { FileTree.remove(workDirectory) }
      result.artifacts = nil
    }
    RunProfile.add("scenario end (its folder removed)", since: profiled)
    return result
  }

  /// `stoppedEarlier`: the pids the harness stopped as daemons in the launch before, with its
  /// number; this launch must not count them.
  private func runLaunch(
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
