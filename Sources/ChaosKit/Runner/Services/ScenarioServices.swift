import Failpoints
import Foundation

/// A scenario run's `services:` (ServiceSpec.swift): their held ports, their directories, the
/// running processes. Made before the first launch (setup commands run, every service ready),
/// told each launch's `services:` (a service down for it is stopped, one up again is started),
/// and stopped at the end of the run, whatever ended it. Used from the scenario's thread only.
final class ScenarioServices {
  private struct Entry {
    var spec: ServiceSpec
    var process: ServiceProcess
    /// Its own variables (`CHAOS_SERVICE_PORT`, `CHAOS_SERVICE_DIR`…) for its command.
    var own: [String: String]
    var directory: String
    var up = false
  }

  private var entries: [Entry] = []
  /// Sockets bound (not listening, SO_REUSEADDR) to every service port for the whole run: the
  /// kernel gives none of them to another program meanwhile, and the service binds beside them.
  var holders: [Int32] = []
  /// The services' private directories (in /tmp), removed at the end.
  var directories: [String] = []
  /// `services.ndjson` in the work directory: each start and stop, with the pids of the tree.
  private let eventsPath: String
  /// What every launch gets: `CHAOS_SERVICE_<NAME>_PORT`, `…_PORT_<PORT>`, `…_DIR`.
  private(set) var variables: [String: String] = [:]

  /// Holds the ports, makes the directories, runs the setup commands and starts every
  /// service (in order, each ready before the next); nil without `services:`.
  static func start(_ scenario: Scenario, workDirectory: String, stateDirectory: String) throws(ScenarioError)
    -> ScenarioServices?
  {
    guard !scenario.services.isEmpty else { return nil }
    let services = ScenarioServices(eventsPath: workDirectory + "/services.ndjson")
    do {
      try services.prepare(scenario, workDirectory: workDirectory, stateDirectory: stateDirectory)
      for index in services.entries.indices { try services.startEntry(index, scenario: scenario) }
    } catch {
      _ = services.stopAll()
      throw error
    }
    return services
  }

  private init(eventsPath: String) { self.eventsPath = eventsPath }

  /// Makes each launch's states so: those named down are stopped, all others are up.
  func apply(_ states: [String: ServiceState], scenario: Scenario, launch: Int) throws(ScenarioError) {
    for index in entries.indices {
      let wanted = states[entries[index].spec.name] ?? .up
      if wanted == .down, entries[index].up {
        let problems = stopEntry(index, why: "launch \(launch) wants it down")
        if let problem = problems.first {
          throw ScenarioError(path: scenario.path, line: entries[index].spec.line, column: 1, message: problem)
        }
      } else if wanted == .up, !entries[index].up {
        try startEntry(index, scenario: scenario)
      }
    }
  }

  /// Stops every running service (last started first), releases the ports and removes the
  /// directories; returns what went wrong (a service that needed SIGKILL, processes left).
  func stopAll() -> [String] {
    var problems: [String] = []
    for index in entries.indices.reversed() where entries[index].up {
      problems += stopEntry(index, why: "the scenario ended")
    }
    for fd in holders { close(fd) }
    holders = []
    for directory in directories {
      _ = FileTree.remove(directory)
      ServiceRegistry.shared.release(directory: directory)
    }
    directories = []
    return problems
  }

  private func prepare(_ scenario: Scenario, workDirectory: String, stateDirectory: String) throws(ScenarioError) {
    // Every port and directory first: a service's command may name another's.
    var owns: [[String: String]] = []
    for spec in scenario.services {
      var own: [String: String] = [:]
      own["CHAOS_SERVICE_PORT"] = String(try holdPort(spec, scenario: scenario))
      for name in spec.ports {
        own["CHAOS_SERVICE_PORT_" + ServiceSpec.portSuffix(name)] = String(try holdPort(spec, scenario: scenario))
      }
      own["CHAOS_SERVICE_DIR"] = try privateDirectory(spec, scenario: scenario)
      for (key, value) in own { variables[spec.variablePrefix + key.dropFirst("CHAOS_SERVICE".count)] = value }
      owns.append(own)
    }
    let folder = URL(fileURLWithPath: scenario.path).deletingLastPathComponent().path
    var shared = variables
    shared["CHAOS_STATE_DIR"] = stateDirectory
    shared["CHAOS_SCENARIO_DIR"] = folder
    for (spec, own) in zip(scenario.services, owns) {
      var environment = ["PATH": ScenarioRunner.inheritedEnvironment["PATH"] ?? "/usr/bin:/bin"]
      environment["HOME"] = own["CHAOS_SERVICE_DIR"]
      environment.merge(shared) { $1 }
      environment.merge(own) { $1 }
      environment.merge(spec.environment.mapValues { RequestSession.expand($0, environment: environment) }) { $1 }
      let logs = workDirectory + "/services/" + spec.name
      try? FileTree.makeDirectories(logs)
      for (number, argv) in spec.setup.enumerated() {
        try runSetup(argv, number: number + 1, spec: spec, environment: environment, logs: logs, scenario: scenario)
      }
      let argv = spec.command.map { RequestSession.expand($0, environment: environment) }
      var launcher = ProcessLauncher(
        executable: try executable(argv[0], spec: spec, environment: environment, scenario: scenario),
        arguments: Array(argv.dropFirst()), environment: environment, stdoutPath: logs + "/stdout.txt",
        stderrPath: logs + "/stderr.txt", workingDirectory: folder)
      launcher.user = spec.user
      var readiness: ReadinessCheck?
      if let ready = spec.ready {
        switch ReadinessCheck.parse(RequestSession.expand(ready, environment: environment)) {
        case .success(let check): readiness = check
        case .failure(let failure):
          throw ScenarioError(
            path: scenario.path, line: spec.line, column: 1, message: "service \(spec.name): \(failure)")
        }
      }
      let process = ServiceProcess(
        name: spec.name, launcher: launcher, readiness: readiness, stopSignal: spec.stopSignal,
        stopGrace: spec.stopTimeout)
      entries.append(Entry(spec: spec, process: process, own: own, directory: own["CHAOS_SERVICE_DIR"] ?? ""))
    }
  }

  private func startEntry(_ index: Int, scenario: Scenario) throws(ScenarioError) {
    let entry = entries[index]
    do {
      let pid = try entry.process.start(readyWithin: entry.spec.readyTimeout)
      entries[index].up = true
      record(entry, state: "ready", pid: pid, tree: entry.process.tree)
    } catch {
      throw ScenarioError(path: scenario.path, line: entry.spec.line, column: 1, message: error.description)
    }
  }

  private func stopEntry(_ index: Int, why: String) -> [String] {
    let entry = entries[index]
    let tree = entry.process.currentTree()
    guard let pid = entry.process.pid, let stopped = entry.process.stop() else { return [] }
    entries[index].up = false
    record(entry, state: "stopped", pid: pid, tree: tree, extra: ["end": stopped.end.description, "why": why])
    var problems: [String] = []
    let signal = Signals.name(entry.spec.stopSignal)
    if stopped.end == .timedOut {
      problems.append(
        "service \(entry.spec.name) (pid \(pid)) did not stop within \(entry.spec.stopTimeout) s of \(signal): SIGKILLed"
      )
    }
    if !stopped.leftovers.isEmpty {
      let pids = stopped.leftovers.map { String($0.pid) }.joined(separator: ", ")
      problems.append("service \(entry.spec.name): processes left after it stopped (pids \(pids)); SIGKILLed")
    }
    return problems
  }

  private func record(
    _ entry: Entry, state: String, pid: pid_t, tree: [ProcessStamp], extra: [String: Any] = [:]
  ) {
    var fields: [String: Any] = ["event": "service", "service": entry.spec.name, "state": state]
    fields["pids"] = tree.map { Int($0.pid) }
    // With each pid's start time (/proc/<pid>/stat field 22): a leak check that reads them back
    // tells a process left behind from a later one that got the same pid.
    fields["start_times"] = tree.map { Int($0.startTime) }
    fields["port"] = Int(entry.own["CHAOS_SERVICE_PORT"] ?? "")
    fields.merge(extra) { $1 }
    HarnessEvent.append(fields, pid: pid, to: eventsPath, source: "harness")
  }
}
