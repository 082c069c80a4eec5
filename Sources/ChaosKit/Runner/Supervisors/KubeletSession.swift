import Failpoints
import Foundation
import Synchronization

/// The kubelet's probes for one container start (`kubernetes:` probes): the startup probe
/// first, then liveness and readiness, each on its own period, on a thread of their own. Each
/// attempt is recorded as a `probe` event (`result: success|failure`, `attempt`), each verdict
/// too (`result: passed|failed` for startup and liveness, `ready|not_ready` for readiness). A
/// failed startup or liveness probe kills the container as the kubelet does: SIGTERM, then
/// SIGKILL to its group after the termination grace period.
final class KubeletSession: Sendable {
  /// What the probe thread asked the harness's thread to do.
  private struct Shared {
    var kill: String?
    var stopped = false
  }

  let spec: KubeletSpec
  private let port: Int?
  private let environment: [String: String]
  private let eventsPath: String
  private let directory: String
  private let shared = Mutex(Shared())
  private let escalation = Mutex<StopEscalation?>(nil)
  private let finished = DispatchSemaphore(value: 0)
  private let pid = Mutex<pid_t>(0)

  init(spec: KubeletSpec, port: Int?, environment: [String: String], eventsPath: String, directory: String) {
    self.spec = spec
    self.port = port
    self.environment = environment
    self.eventsPath = eventsPath
    self.directory = directory
  }

  /// The container started: the probes begin. Command probes get the launch's environment and
  /// `CHAOS_PID`, the container's pid.
  func started(_ pid: pid_t) {
    self.pid.withLock { $0 = pid }
    escalation.withLock {
      var stop = StopEscalation(pid: pid, eventsPath: eventsPath, timeout: spec.terminationGracePeriod * spec.timeScale)
      stop.source = "kubelet"
      $0 = stop
    }
    guard spec.startupProbe != nil || spec.livenessProbe != nil || spec.readinessProbe != nil else {
      finished.signal()
      return
    }
    let thread = Thread { [self] in
      probeLoop(start: MonotonicClock.nanoseconds(), pid: pid)
      finished.signal()
    }
    thread.name = "chaos-kubelet-\(pid)"
    thread.start()
  }

  /// Called while the harness waits: carries out a kill a probe asked for, then the grace period.
  func tick() {
    let kill = shared.withLock { shared -> String? in
      defer { shared.kill = nil }
      return shared.kill
    }
    escalation.withLock { stop in
      if let kill, stop?.begun == false { stop?.begin(SIGTERM, reason: kill) }
      stop?.tick()
    }
  }

  /// The container was reaped: the probes stop.
  func finish() {
    shared.withLock { $0.stopped = true }
    finished.wait()
  }

  private var stopped: Bool { shared.withLock { $0.stopped || $0.kill != nil } }

  private func probeLoop(start: UInt64, pid: pid_t) {
    let scale = spec.timeScale
    func at(_ seconds: Double) -> UInt64 { start + UInt64(max(0, seconds * scale) * 1e9) }
    var startup = ProbeState(
      kind: "startup", spec: spec.startupProbe, firstAt: spec.startupProbe.map { at($0.initialDelay) })
    var liveness = ProbeState(kind: "liveness", spec: spec.livenessProbe, firstAt: nil)
    var readiness = ProbeState(kind: "readiness", spec: spec.readinessProbe, firstAt: nil)
    // Liveness and readiness start once the startup probe passed (at once without one).
    func startOthers(now: UInt64) {
      if let probe = liveness.spec { liveness.next = max(now, at(probe.initialDelay)) }
      if let probe = readiness.spec { readiness.next = max(now, at(probe.initialDelay)) }
    }
    if startup.spec == nil { startOthers(now: start) }
    while !stopped {
      let due = [startup.next, liveness.next, readiness.next].compactMap { $0 }.min()
      guard let due else { return }
      while !stopped, MonotonicClock.sleepStep(until: due, atMost: 5_000) {}
      if stopped { return }
      let now = MonotonicClock.nanoseconds()
      if let next = startup.next, next <= now {
        switch attempt(&startup, pid: pid) {
        case .passed:
          startup.next = nil
          record(startup.kind, "passed", pid: pid)
          startOthers(now: MonotonicClock.nanoseconds())
        case .failed:
          record(startup.kind, "failed", pid: pid, budget: startup.spec)
          shared.withLock { $0.kill = "startup-probe" }
          return
        case .undecided:
          startup.next = next + UInt64(startup.period * scale * 1e9)
        }
      }
      if let next = liveness.next, next <= now {
        if case .failed = attempt(&liveness, pid: pid) {
          record(liveness.kind, "failed", pid: pid, budget: liveness.spec)
          shared.withLock { $0.kill = "liveness-probe" }
          return
        }
        liveness.next = next + UInt64(liveness.period * scale * 1e9)
      }
      if let next = readiness.next, next <= now {
        switch attempt(&readiness, pid: pid) {
        case .passed where readiness.ready != true:
          readiness.ready = true
          record(readiness.kind, "ready", pid: pid)
        case .failed where readiness.ready != false, .undecided where readiness.ready == nil:
          readiness.ready = false
          record(readiness.kind, "not_ready", pid: pid)
        default:
          break
        }
        readiness.next = next + UInt64(readiness.period * scale * 1e9)
      }
    }
  }

  private enum Verdict { case passed, failed, undecided }

  private struct ProbeState {
    let kind: String
    let spec: ProbeSpec?
    var next: UInt64?
    var attempts = 0
    var successes = 0
    var failures = 0
    var ready: Bool?

    init(kind: String, spec: ProbeSpec?, firstAt: UInt64?) {
      self.kind = kind
      self.spec = spec
      self.next = firstAt
    }

    var period: Double { spec?.period ?? 10 }
  }

  /// One attempt: recorded, counted against the thresholds.
  private func attempt(_ state: inout ProbeState, pid: pid_t) -> Verdict {
    guard let probe = state.spec else { return .undecided }
    state.attempts += 1
    let failure = run(probe, attempt: state.attempts)
    var fields: [String: Any] = [
      "event": "probe", "kind": state.kind, "result": failure == nil ? "success" : "failure", "attempt": state.attempts,
    ]
    if let failure { fields["detail"] = failure }
    HarnessEvent.append(fields, pid: pid, to: eventsPath, source: "kubelet")
    if failure == nil {
      state.successes += 1
      state.failures = 0
      return state.successes >= probe.successThreshold ? .passed : .undecided
    }
    state.failures += 1
    state.successes = 0
    return state.failures >= probe.failureThreshold ? .failed : .undecided
  }

  private func record(_ kind: String, _ result: String, pid: pid_t, budget probe: ProbeSpec? = nil) {
    var fields: [String: Any] = ["event": "probe", "kind": kind, "result": result]
    if let probe {
      fields["budget_ms"] = Int(probe.budget * spec.timeScale * 1000)
      fields["failure_threshold"] = probe.failureThreshold
      fields["period_ms"] = Int(probe.period * spec.timeScale * 1000)
    }
    HarnessEvent.append(fields, pid: pid, to: eventsPath, source: "kubelet")
  }

  /// Runs the probe once; nil on success, else why it failed. Timeouts are scaled, but never
  /// below 100 ms: a loopback request on a busy CI machine needs that much.
  private func run(_ probe: ProbeSpec, attempt: Int) -> String? {
    let timeout = max(0.1, probe.timeout * spec.timeScale)
    switch probe.action {
    case .http(let path, let probePort):
      guard let port = probePort ?? port else { return "no port (CHAOS_PORT)" }
      switch HTTPProbe.fetch(method: "GET", path: path, port: port, timeout: timeout) {
      case .success(let response):
        return (200..<400).contains(response.status) ? nil : "HTTP \(response.status)"
      case .failure(let failure):
        return "\(failure)"
      }
    case .command(let arguments):
      var environment = environment
      environment["CHAOS_PID"] = String(pid.withLock { $0 })
      let launcher = ProcessLauncher(
        executable: Self.resolve(arguments[0], path: environment["PATH"]), arguments: Array(arguments.dropFirst()),
        environment: environment, stdoutPath: directory + "/probe.stdout.txt",
        stderrPath: directory + "/probe.stderr.txt")
      do {
        let end = ProcessLauncher.wait(try launcher.spawn(), timeout: timeout)
        return end == .exited(0) ? nil : "\(end)"
      } catch {
        return "\(error)"
      }
    }
  }

  static func resolve(_ name: String, path: String?) -> String {
    name.contains("/") ? name : RequestSession.searchPath(for: name, path: path) ?? name
  }
}
