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

  /// One attempt of `run(_:round:judge:)`.
  func runAttempt(_ scenario: Scenario, round: Int, judge: LaunchJudge?) -> ScenarioResult {
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
              LaunchRun(
                scenario: scenario, spec: spec, number: number, iteration: iteration, target: target,
                workDirectory: workDirectory, stateDirectory: stateDirectory, stoppedEarlier: stoppedEarlier,
                restart: restart, dependency: dependency, judge: judge))
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
}
