import Failpoints
import Foundation

/// A launch under a real systemd (`systemd:`): one start of the unit, begun by `systemctl` or
/// by systemd's own `Restart=`, watched through `systemctl show` until its main process ended,
/// and judged from its events, systemd's view and the unit's journal.
extension ScenarioRunner {
  /// Boots the scenario's systemd (nil when it has no `systemd:`).
  func startSystemd(_ scenario: Scenario, target: String, workDirectory: String) throws(ScenarioError)
    -> SystemdSession?
  {
    guard let spec = scenario.systemd else { return nil }
    let place = { (message: String) in ScenarioError(path: scenario.path, line: spec.line, column: 1, message: message)
    }
    if let problem = SystemdSupport.problem { throw place(problem) }
    let session = SystemdSession(
      spec: spec, workDirectory: workDirectory, target: target, harnessID: ContainerRegistry.shared.newID())
    do { try session.start(target: target) } catch {
      session.machine.kill()
      throw place("systemd: \(error)")
    }
    return session
  }

  /// The environment a start of the unit gets from the harness (`launch.env`).
  func systemdEnvironment(_ session: SystemdSession, _ scenario: Scenario, _ spec: LaunchSpec, number: Int)
    -> [String: String]
  {
    let directory = session.workDirectory + "/launch-\(number)"
    var environment = environment(
      scenario, spec, events: session.inside(directory + "/events.ndjson"),
      state: session.inside(session.workDirectory + "/state"), port: nil)
    // systemd gives the unit its own PATH and HOME, and the app takes STATE_DIRECTORY when the unit has one.
    environment["PATH"] = nil
    environment["HOME"] = nil
    if session.spec.stateDirectory != nil { environment["CHAOS_STATE_DIR"] = nil }
    return environment
  }

  /// Runs launch `number`: begins the start, waits for its main process to end (or the
  /// launch's timeout, when the harness kills the unit's processes), and judges it.
  func runSystemdLaunch(
    _ session: SystemdSession, _ scenario: Scenario, _ spec: LaunchSpec, number: Int, target: String,
    stoppedEarlier: [pid_t: Int]
  ) -> ProcessResult {
    let directory = session.prepareLaunch(number)
    let failed = { (message: String) in
      ProcessResult(
        launch: number, line: spec.line, iteration: 1, process: 1, pid: 0, end: nil, outcome: nil, relaunched: false,
        durationMilliseconds: 0, artifacts: directory, failures: [ScenarioFailure(.notStarted, message)])
    }
    session.writeEnvironment(systemdEnvironment(session, scenario, spec, number: number), for: number)
    // The next start may come at once (`systemctl restart`): its folder and events file first.
    func nextEnvironment() {
      _ = session.prepareLaunch(number + 1)
      session.writeEnvironment(
        systemdEnvironment(session, scenario, scenario.launches[number], number: number + 1), for: number + 1)
    }
    let unit = session.spec.unitName
    let begin = spec.systemdStart ?? (number == 1 ? .systemctl : .automatic)
    switch begin {
    case .automatic: break
    case .systemctl, .restart, .reboot:
      if begin == .reboot {
        do { try session.reboot(target: target) } catch { return failed("reboot: \(error)") }
      }
      let verb = begin == .restart ? "restart" : "start"
      let done = session.systemctl([verb, "--no-block", unit])
      guard done.status == 0 else { return failed("systemctl \(verb) \(unit): \(done.said)") }
    }
    let timeout = spec.timeoutSeconds ?? scenario.timeoutSeconds
    let deadline = MonotonicClock.nanoseconds() + UInt64(timeout * 1e9)
    // The start: a main pid other than the last launch's.
    var view = session.view()
    while view.execMainPID == 0 || view.execMainPID == session.lastPid {
      if MonotonicClock.nanoseconds() > deadline || ChildRegistry.shared.isCancelled {
        try? view.text.write(toFile: directory + "/systemd.txt", atomically: true, encoding: .utf8)
        return failed(
          "systemd started no process for this launch (\(begin.rawValue)) within \(Int(timeout)) s: ActiveState="
            + "\(view["ActiveState"]) SubState=\(view["SubState"]) Result=\(view["Result"])")
      }
      usleep(50_000)
      view = session.view()
    }
    let pid = view.execMainPID
    let invocation = view["InvocationID"]
    session.lastPid = pid
    let spawned = MonotonicClock.nanoseconds()
    var judged: SystemdUnitView?
    var stopped = false
    var end: ProcessEnd?
    let events = directory + "/events.ndjson"
    while end == nil {
      view = session.view()
      if view.execMainPID == pid, view.mainExited {
        end = view.end
        break
      }
      // Replaced before a poll saw it end (`systemctl restart`): systemd's ExecStopPost= said how.
      if view.execMainPID != pid, let recorded = session.recordedEnd(of: invocation) {
        end = recorded
        break
      }
      // The start read its environment once it wrote an event: the next one's can go in.
      if number < scenario.launches.count,
        (try? FileManager.default.attributesOfItem(atPath: events)[.size] as? Int) ?? 0 > 0
      {
        nextEnvironment()
      }
      if let step = spec.systemctl, judged == nil, EventPeek.contains(step.afterEvent, path: events) {
        // What systemd made of the launch so far, once it acted on a READY=1 sent just before.
        for _ in 0..<10 where view["ActiveState"] == "activating" && view["SubState"] == "start" {
          usleep(50_000)
          view = session.view()
        }
        judged = view
        if step.command == .powerCut {
          // The kernel ends every process of the container with its PID 1: no exit for systemd to record.
          session.machine.kill()
          end = .signaled(SIGKILL)
          break
        }
        var arguments = [step.command.rawValue, "--no-block", unit]
        if step.command == .kill { arguments.insert("--signal=\(step.signal)", at: 1) }
        _ = session.systemctl(arguments)
        stopped = step.command == .stop || step.command == .restart || (step.command == .kill && step.signal == SIGTERM)
      }
      if MonotonicClock.nanoseconds() > deadline || ChildRegistry.shared.isCancelled {
        _ = session.systemctl(["kill", "--signal=SIGKILL", unit])
        end = .timedOut
        break
      }
      usleep(50_000)
    }
    let reaped = MonotonicClock.nanoseconds()
    // Settle: a stop still in progress, or systemd not yet done with the exit.
    let down = session.machine.containerLeader == 0
    for _ in 0..<100
    where !down
      && (view.isPassing || view.isClearing || (view.execMainPID == pid && !view.mainExited))
    {
      usleep(50_000)
      view = session.view()
    }
    if number < scenario.launches.count { nextEnvironment() }
    let shown = judged ?? view
    try? (shown.text + (judged == nil ? "" : "# after the end\n" + view.text)).write(
      toFile: directory + "/systemd.txt", atomically: true, encoding: .utf8)
    let stateDirectory = session.stateDirectory(default: session.workDirectory + "/state")
    // The state is read as the service's user (its `User=`, who owns the state directory).
    var judgedSpec = spec
    var owner = stat()
    if stat(stateDirectory, &owner) == 0, owner.st_uid != 0 {
      judgedSpec.user = RunAs(uid: owner.st_uid, gid: owner.st_gid, name: "the unit's user")
    }
    var result = observe(
      end ?? .timedOut, pid: pid, directory: directory, spec: judgedSpec, number: number, iteration: 1, process: 1,
      stateDirectory: stateDirectory, stoppedByHarness: stopped, stoppedEarlier: stoppedEarlier,
      span: (spawned, reaped), kubelet: nil, restartDelay: nil)
    result.stoppedByHarness = stopped
    let launchTime = (try? EventDecoder.decode(path: events).events)?.first { $0.name == "launch" }?.time
    if number == 1 { session.firstStart = launchTime }
    let startedAt = launchTime.flatMap { time in session.firstStart.map { Double(Int64(bitPattern: time &- $0)) / 1e9 }
    }
    result.failures += SystemdChecks.check(
      spec.expect,
      SystemdChecks.Seen(
        view: shown, journal: session.newJournalLines(into: directory), startedAt: startedAt,
        stateDirectoryMode: SystemdChecks.mode(of: stateDirectory)))
    return result
  }
}
