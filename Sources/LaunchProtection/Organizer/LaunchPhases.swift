import CCrashCapture

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// The phases of a launch, shared by the closure API and the async API: the decision with its
/// durable sentinel, the repair, the relaunch. Each phase arms the launch deadline.
extension LaunchOrganizer {
  /// What `begin` decided.
  @usableFromInline
  enum Start: Sendable {
    /// `finishLaunching` or `launch` ran before: nothing to do.
    case alreadyStarted
    /// Run the launch.
    case normal
    /// Run the repair (the level is persisted).
    case protect(ProtectContext)
  }

  /// Counts the launches that died unfinished, persists this launch's sentinel (and the level
  /// about to be attempted), starts listening for a stop request, and tells the observers.
  /// No app code runs here except a custom policy closure.
  func begin(policy: ProtectionPolicy, heldLaunch: (@Sendable () -> Void)?) -> Start {
    let alreadyStarted = inner.withLock { inner in
      if case .idle = inner.mode {
        inner.mode = .normal  // claimed; refined below
        return false
      }
      return true
    }
    if alreadyStarted { return .alreadyStarted }

    var identity = configuration.environment.current()
    identity.machine = configuration.machineIdentity
    var record = LaunchRecord(
      process: identity, launchID: launchID, phase: .launching, startDate: Date())
    var consumed = ConsumedReports()
    var lastCause: String?
    var outage: DependencyOutage?
    var (decision, problems) = stateStore.updateWithDirectory { state, directory in
      let decision = decide(state: &state, record: &record, policy: policy, directory: directory, consumed: &consumed)
      lastCause = state.lastCrashCause?.type
      outage = state.lastDependencyOutage
      return decision
    }
    if let directory = consumed.directory, !problems.contains(where: { $0.code == .writeFailed }) {
      // Crash reports: what they said is persisted now. Not before: after a failed write the
      // next launch must see them again (found by `chaos explore`).
      for name in consumed.names { unlinkat(directory.fd, name, 0) }
      if consumed.marked { CrashReports.settleMarker(in: directory) }
    }
    if !consumed.refused.isEmpty { problems += consumed.refused }
    CrashCapture.markLaunchFinished(false)
    var finalDecision = decision
    finalDecision.problems = problems
    inner.withLock { inner in
      inner.mode = decision.mode
      inner.since = Date()
      inner.lastCause = lastCause
      inner.outage = outage
      inner.record = record
      inner.decision = finalDecision
      inner.degraded = decision.exhausted && policy.exhausted == .stayDegraded
      if case .protect = decision.mode { inner.heldLaunch = heldLaunch }
    }
    ExitTracker.shared.track(self, launchID: record.launchID)
    if configuration.ignoreTermination { StopSignal.shared.arm(for: self) }
    for problem in problems { emit(.stateProblem(problem)) }
    if let shared = StateDirectoryNotices.take(configured: configuration.stateDirectory) {
      emit(.privateStateDirectory(shared.directory, reason: shared.reason))
    }
    emit(.launch(finalDecision))
    guard case .protect(let level) = decision.mode else { return .normal }
    let context = ProtectContext(count: decision.count, level: level, exhausted: decision.exhausted)
    if decision.exhausted {
      emit(.levelsExhausted(count: decision.count, level: level, action: policy.exhausted))
      if case .exit(let status) = policy.exhausted {
        SystemdNotify.send("STATUS=every repair level failed after \(decision.count) launch crashes; exiting \(status)")
        exit(status)
      }
    }
    return .protect(context)
  }

  /// The normal launch starts: its deadline, its failpoint.
  func enterLaunch(thread: LaunchDeadline.RunningThread?) {
    arm(.launching, thread: thread)
    _ = configuration.failpoints.evaluate("launch.begin")
  }

  /// The repair starts: systemd is told, the repair's deadline is armed (not when the levels
  /// are exhausted and the app stays degraded: that state may last).
  func enterRepair(_ context: ProtectContext, thread: LaunchDeadline.RunningThread?) {
    emit(.protectEnter(count: context.count, level: context.level))
    if inner.withLock({ $0.degraded }) {
      SystemdNotify.send(
        "READY=1\nSTATUS=degraded: every repair level failed after \(context.count) launch crashes")
    } else {
      SystemdNotify.send(
        "STATUS=protect mode: repair level \(context.level.number) (\(context.level.name)) after \(context.count) launch crashes\n"
          + extendTimeout)
      arm(.protecting, thread: thread)
    }
    _ = configuration.failpoints.evaluate("protect.begin")
  }

  /// The repair is done: protect mode is left, the relaunch's deadline armed. Returns the
  /// held launch to run (a no-op for the async API), or nil when not in protect mode or when
  /// the levels are exhausted and the app stays degraded.
  func leaveRepair(thread: LaunchDeadline.RunningThread?) -> (@Sendable () -> Void)? {
    guard case .protect = currentMode else { return nil }
    _ = configuration.failpoints.evaluate("protect.finish")
    let taken: (ProtectLevel, @Sendable () -> Void)? = inner.withLock { inner in
      guard case .protect(let level) = inner.mode, !inner.degraded else { return nil }
      inner.mode = .relaunched(after: level)
      inner.since = Date()
      let launch = inner.heldLaunch ?? {}
      inner.heldLaunch = nil
      inner.record?.phase = .relaunching
      return (level, launch)
    }
    guard let (level, launch) = taken else { return nil }
    emit(.protectFinish(level: level))
    SystemdNotify.send("STATUS=repair level \(level.number) done; relaunching\n" + extendTimeout)
    arm(.relaunching, thread: thread)
    emit(.relaunch)
    _ = configuration.failpoints.evaluate("launch.begin")
    return launch
  }

  /// Both launches name their machine, and the names differ: the state directory moved.
  static func ranElsewhere(_ old: ProcessIdentity, than current: ProcessIdentity) -> Bool {
    guard let before = old.machine, let now = current.machine else { return false }
    return before != now
  }

  /// What systemd is told when the repair and the relaunch start: each may take the deadline.
  private var extendTimeout: String {
    "EXTEND_TIMEOUT_USEC=\((configuration.launchDeadline ?? configuration.repairTimeExtension).wholeMicroseconds)"
  }

  /// The crash reports a decision read: removed once the state that records them is written.
  struct ConsumedReports {
    /// The directory they are in (nil: none was read, the directory being refused).
    var directory: StateDirectory?
    var names: [String] = []
    /// The handler's marker was there (it goes with the reports).
    var marked = false
    /// Entries refused by the trust rule, moved aside.
    var refused: [StateProblem] = []
  }

  /// How many processes `records` ran in (pid, start time and boot): a short list, compared pairwise.
  static func distinctProcesses(_ records: [LaunchRecord]) -> Int {
    var count = 0
    for (index, record) in records.enumerated()
    where !records[..<index].contains(where: { $0.process == record.process }) {
      count += 1
    }
    return count
  }

  /// The decision, made under the state lock. Only value work: no app code runs here
  /// except a custom policy closure.
  func decide(
    state: inout LaunchState, record: inout LaunchRecord, policy: ProtectionPolicy, directory: StateDirectory?,
    consumed: inout ConsumedReports
  ) -> LaunchDecision {
    let environment = configuration.environment
    let previousCount = state.consecutiveCrashes
    // Sized once: each holds at most every launch in progress. Not `ignored`, which is
    // usually empty: the metadata of its storage (an array of tuples) is built the first time
    // one is allocated, ~8 000 instructions of a fresh process's launch.
    let capacity = state.launchesInProgress.count
    var counted: [LaunchRecord] = []
    var ignored: [(record: LaunchRecord, reason: IgnoredReason)] = []
    var outages: [LaunchRecord] = []
    var kept: [LaunchRecord] = []
    counted.reserveCapacity(capacity)
    kept.reserveCapacity(capacity + 1)
    for old in state.launchesInProgress where old.launchID != record.launchID {
      // A launch that names this very process (pid, start time, boot) but is none of its own
      // unfinished launches ran in a process that had the same pid and start time: PID 1 of
      // a container restarted within one clock tick (10 ms). It is dead.
      let reusedIdentity = old.process == record.process && !ExitTracker.shared.isTracking(launchID: old.launchID)
      if old.process.bootID == record.process.bootID, !reusedIdentity, environment.isAlive(old.process) {
        ignored.append((old, .stillRunning))
        kept.append(old)
      } else if configuration.ignoreReboots, old.process.bootID != record.process.bootID,
        !Self.ranElsewhere(old.process, than: record.process)
      {
        ignored.append((old, .reboot))
        state.lastUncountedExit = UncountedExit(
          reason: .reboot, pid: old.process.pid, decisionDate: Date())
      } else if let dependency = old.waitingFor {
        // Ended while waiting for a dependency: an outage, never a launch crash (whatever
        // ended it: the app giving up, a supervisor's stop, a crash in the client).
        outages.append(old)
        let inARow = (state.lastDependencyOutage?.launchesInARow ?? 0) + 1
        let now = Date()
        state.lastDependencyOutage = DependencyOutage(
          dependency: dependency, launchesInARow: min(inARow, LaunchState.maximumCount), pid: old.process.pid,
          decisionDate: now, since: state.lastDependencyOutage?.since ?? now)
      } else if configuration.ignoreTermination, old.stopRequestDate != nil {
        ignored.append((old, .terminated))
        state.lastUncountedExit = UncountedExit(
          reason: .terminated, pid: old.process.pid, decisionDate: Date())
      } else {
        counted.append(old)
      }
    }
    // A process that died with several launches unfinished (organizers sharing the directory
    // in one process: an app's parallel tests) crashed once. Saturates: no state on disk may
    // make the launch trap (the read already rejected values out of range).
    let crashedProcesses = Self.distinctProcesses(counted)
    state.consecutiveCrashes = min(LaunchState.maximumCount, state.consecutiveCrashes + crashedProcesses)
    let previousAttempt = counted.isEmpty ? nil : state.attemptedProtectLevel
    let executable = environment.executableID()
    // Crash reports left by the handler: the counted launches' and any crash after launch.
    var previousCrash: CrashCause?
    if let directory {
      let (reports, refused, marked) = CrashReports.waiting(
        in: directory, executableChanged: executable != state.executableID)
      previousCrash = reports.map(\.cause).max { $0.recordedSeconds < $1.recordedSeconds }
      if let previousCrash { state.lastCrashCause = previousCrash.clamped() }
      consumed.directory = directory
      consumed.names += reports.map(\.name)
      consumed.refused += refused
      consumed.marked = consumed.marked || marked
    }

    var resetByNewBinary = false
    if configuration.resetOnNewBinary, let executable, let known = state.executableID, known != executable {
      resetByNewBinary = true
      state.consecutiveCrashes = 0
      state.attemptedProtectLevel = nil
    }
    if let executable { state.executableID = executable }

    let count = state.consecutiveCrashes
    let attempt = resetByNewBinary ? nil : previousAttempt
    let mode: LaunchMode
    if let level = policy.level(count: count, previousAttempt: attempt) {
      mode = .protect(level)
      state.attemptedProtectLevel = min(level.number, LaunchState.maximumLevel)
      record.phase = .protecting
    } else {
      mode = .normal
    }
    state.launchesInProgress = kept + [record]
    return LaunchDecision(
      count: count, previousCount: previousCount, countedCrashes: counted,
      ignored: ignored.map { IgnoredLaunch(record: $0.record, reason: $0.reason) },
      resetByNewBinary: resetByNewBinary, mode: mode, problems: [], previousCrash: previousCrash,
      exhausted: mode != .normal && policy.isExhausted(previousAttempt: attempt), policy: policy,
      dependencyOutages: outages)
  }
}
