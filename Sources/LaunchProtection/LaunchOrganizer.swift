import CCrashCapture
import Failpoints
import Foundation
import Synchronization

/// What a repair is told when protect mode starts.
public struct ProtectContext: Sendable {
  /// Consecutive launch crashes, including the one that triggered this.
  public var count: Int
  /// The level being attempted (already persisted).
  public var level: ProtectLevel
}

/// Launch-crash protection: counts consecutive launches that died before
/// `launchingFinished()`, enters protect mode on the app's policy, and runs the held launch
/// in-process once the repair calls `protectFinished()`.
///
/// A Swift version of the seed's `LaunchOrganizer`:
/// `finishingLaunching:launchAction:protectAction:` → `finishLaunching(shouldProtect:launch:protect:)`,
/// `addLifeActionWithKey:action:protectAction:` → `addLifeAction(key:action:protect:)`,
/// `doActionWithKey:` → `performAction(key:)`, `launchingFinished`, `protectFinish` →
/// `protectFinished()`, `handleException:` → `handleException(_:detail:)`.
///
/// Instance-based and thread-safe. Closures run on the calling thread, outside any lock.
public final class LaunchOrganizer: Sendable {
  /// How the organizer persists and filters.
  public struct Configuration: Sendable {
    /// Where the state lives; survives repairs (never wipe it from a repair).
    public var stateDirectory: String
    /// Don't count a launch that was unfinished when the machine rebooted (boot id changed).
    public var ignoreReboots = true
    /// Don't count a launch stopped by SIGTERM (a clean shutdown); installs a SIGTERM
    /// handler during the launch that drops a marker file and then re-raises.
    public var ignoreTermination = true
    /// Reset the count when the executable changed (a new build fixes the crash loop).
    public var resetOnNewBinary = true
    /// How long to wait for another process's lock before going on without it.
    public var lockTimeout: Duration = .seconds(2)
    /// What a state update survives: `.processCrash` (default, no fsync on the launch path)
    /// or `.powerLoss` (every update fsynced). See `Durability`.
    public var durability: Durability = .processCrash
    /// The registry whose `store.*` failpoints the store evaluates.
    public var failpoints: FailpointRegistry = .shared
    /// Process facts; `.system` outside tests.
    public var environment: LaunchEnvironment = .system
    /// Off (nil) by default. When set, each phase of the launch — the launch itself, the
    /// repair in protect mode, the relaunch after `protectFinished()`, each timed from its own
    /// start — must reach the next phase or `launchingFinished()` within it. A phase that
    /// does not is recorded as hung (cause `launch-hang`, with the backtrace of the thread
    /// running it, and of the main thread when that is another one) and the process is ended
    /// with SIGABRT, so the next launch counts it like a crash. Choose it shorter than any
    /// outside start timeout (systemd's `TimeoutStartSec`).
    public var launchDeadline: Duration?
    /// When started by systemd (`NOTIFY_SOCKET`), send `READY=1` from `launchingFinished()`.
    public var notifyReady = true
    /// Told to systemd (`EXTEND_TIMEOUT_USEC`) when a repair or the relaunch starts, when no
    /// `launchDeadline` is set (with one, the deadline is what is announced).
    public var repairTimeExtension: Duration = .seconds(90)

    /// Creates a configuration for a state directory.
    public init(stateDirectory: String) { self.stateDirectory = stateDirectory }
  }

  private struct Inner {
    var mode: LaunchMode = .idle
    var record: LaunchRecord?
    var decision: LaunchDecision?
    var heldLaunch: (@Sendable () -> Void)?
    var heldActions: [String: @Sendable () -> Void] = [:]
    var observers: [@Sendable (LaunchProtectionEvent) -> Void] = []
  }

  /// The failpoints the organizer evaluates in `configuration.failpoints` (`life.*` stands for
  /// `life.<key>` of every life action). Declare them when you configure failpoints.
  ///
  /// - `launch.begin`: right before the launch closure runs (normal launch and relaunch);
  /// - `launch.finished`: on entry to `launchingFinished()`, before anything is persisted;
  /// - `protect.begin`: right before the repair closure runs;
  /// - `protect.finish`: on entry to `protectFinished()`, before the held launch is released;
  /// - `life.<key>`: right before a life action's `action` runs;
  /// - `store.write`, `store.fsync`, `store.rename`: the state store's I/O.
  public static let failpointNames = [
    "launch.begin", "launch.finished", "protect.begin", "protect.finish", "life.*", "store.write", "store.fsync",
    "store.rename",
  ]

  /// The configuration in force.
  public let configuration: Configuration
  private let deadline: LaunchDeadline?
  /// The main thread, when the organizer was created on it (for the hang's second backtrace).
  private let mainThread: LaunchDeadline.RunningThread?
  /// The state store (readable by tools and tests).
  public let store: StateStore
  private let launchID = UUID().uuidString
  private let inner = Mutex(Inner())

  /// Creates an organizer; nothing is read or written until `finishLaunching`.
  public init(configuration: Configuration) {
    self.configuration = configuration
    self.deadline = configuration.launchDeadline.map(LaunchDeadline.init)
    self.mainThread = lcc_current_thread_id() == getpid() ? .current : nil
    self.store = StateStore(
      directory: configuration.stateDirectory, durability: configuration.durability,
      lockTimeout: configuration.lockTimeout,
      failpoints: configuration.failpoints)
  }

  /// Convenience for `init(configuration:)` with defaults.
  public convenience init(stateDirectory: String) {
    self.init(configuration: Configuration(stateDirectory: stateDirectory))
  }

  /// Adds an observer of every transition. Add observers before `finishLaunching`.
  public func addObserver(_ observer: @escaping @Sendable (LaunchProtectionEvent) -> Void) {
    inner.withLock { $0.observers.append(observer) }
  }

  /// The current mode.
  public var mode: LaunchMode { inner.withLock { $0.mode } }

  /// Why this launch's count is what it is; nil before `finishLaunching`.
  public var decision: LaunchDecision? { inner.withLock { $0.decision } }

  /// The seed's form: `shouldProtect(count)` decides; true runs `protect` and holds `launch`.
  public func finishLaunching(
    shouldProtect: @escaping @Sendable (Int) -> Bool,
    launch: @escaping @Sendable () -> Void,
    protect: @escaping @Sendable () -> Void
  ) {
    finishLaunching(policy: .custom(shouldProtect), launch: launch, protect: { _ in protect() })
  }

  /// Starts the launch: counts the launches that died unfinished, writes this launch's
  /// sentinel durably, then runs `launch` (normal mode) or `protect` (protect mode, with the
  /// level persisted first). Calling it a second time does nothing.
  public func finishLaunching(
    policy: ProtectionPolicy,
    launch: @escaping @Sendable () -> Void,
    protect: @escaping @Sendable (ProtectContext) -> Void
  ) {
    let alreadyStarted = inner.withLock { inner in
      if case .idle = inner.mode {
        inner.mode = .normal  // claimed; refined below
        return false
      }
      return true
    }
    if alreadyStarted { return }

    let identity = configuration.environment.current()
    var record = LaunchRecord(
      process: identity, launchID: launchID, phase: .launching, startedAt: Date().timeIntervalSince1970)
    var consumedFiles: [String] = []
    let (decision, problems) = store.update { state in
      decide(state: &state, record: &record, policy: policy, consumedFiles: &consumedFiles)
    }
    if !problems.contains(where: { if case .writeFailed = $0 { true } else { false } }) {
      // Crash reports and SIGTERM markers: what they said is persisted now. Not before: after a
      // failed write the next launch must see them again (found by `chaos explore`).
      for path in consumedFiles { unlink(path) }
    }
    CrashCapture.markLaunchFinished(false)
    var finalDecision = decision
    finalDecision.problems = problems
    inner.withLock { inner in
      inner.mode = decision.mode
      inner.record = record
      inner.decision = finalDecision
      if case .protect = decision.mode { inner.heldLaunch = launch }
    }
    ExitTracker.shared.track(self)
    if configuration.ignoreTermination {
      lcc_term_marker_install(Self.terminationMarkerPath(directory: store.directory, identity))
    }
    for problem in problems { emit(.stateProblem(problem)) }
    emit(.launch(finalDecision))
    if case .protect(let level) = decision.mode {
      emit(.protectEnter(count: decision.count, level: level))
      SystemdNotify.send(
        "STATUS=protect mode: repair level \(level.number) (\(level.name)) after \(decision.count) launch crashes\n"
          + extendTimeout
      )
      arm(.repair)
      _ = configuration.failpoints.evaluate("protect.begin")
      protect(ProtectContext(count: decision.count, level: level))
    } else {
      arm(.launch)
      _ = configuration.failpoints.evaluate("launch.begin")
      launch()
    }
  }

  /// The decision, made under the state lock. Only value work: no app code runs here
  /// except a custom policy closure.
  private func decide(
    state: inout LaunchState, record: inout LaunchRecord, policy: ProtectionPolicy, consumedFiles: inout [String]
  ) -> LaunchDecision {
    let environment = configuration.environment
    let previousCount = state.consecutiveCrashes
    var counted: [LaunchRecord] = []
    var ignored: [(record: LaunchRecord, reason: IgnoredReason)] = []
    var kept: [LaunchRecord] = []
    for old in state.launchesInProgress where old.launchID != record.launchID {
      let marker = Self.terminationMarkerPath(directory: store.directory, old.process)
      if old.process.bootID == record.process.bootID, environment.isAlive(old.process) {
        ignored.append((old, .stillRunning))
        kept.append(old)
      } else if configuration.ignoreReboots, old.process.bootID != record.process.bootID {
        ignored.append((old, .reboot))
        state.lastUncountedExit = UncountedExit(
          reason: .reboot, pid: old.process.pid, decidedAt: Date().timeIntervalSince1970)
      } else if configuration.ignoreTermination, access(marker, F_OK) == 0 {
        ignored.append((old, .terminated))
        state.lastUncountedExit = UncountedExit(
          reason: .terminated, pid: old.process.pid, decidedAt: Date().timeIntervalSince1970)
        consumedFiles.append(marker)
      } else {
        counted.append(old)
      }
    }
    // Saturates: no state on disk may make the launch trap (the read already rejected values out of range).
    state.consecutiveCrashes = min(LaunchState.maximumCount, state.consecutiveCrashes + counted.count)
    // Crash reports left by the handler: the counted launches' and any crash after launch.
    let reports = CrashReports.all(directory: store.directory)
    let previousCrash = reports.map(\.cause).max { $0.recordedAt < $1.recordedAt }
    if let previousCrash { state.lastCrashCause = previousCrash.clamped() }
    consumedFiles += reports.map(\.path)
    let previousAttempt = counted.isEmpty ? nil : state.attemptedProtectLevel

    var resetByNewBinary = false
    let executable = environment.executableID()
    if configuration.resetOnNewBinary, let executable, let known = state.executableID, known != executable {
      resetByNewBinary = true
      state.consecutiveCrashes = 0
      state.attemptedProtectLevel = nil
    }
    if let executable { state.executableID = executable }

    let count = state.consecutiveCrashes
    let mode: LaunchMode
    if let level = policy.level(count: count, previousAttempt: resetByNewBinary ? nil : previousAttempt) {
      mode = .protect(level)
      state.attemptedProtectLevel = min(level.number, LaunchState.maximumLevel)
      record.phase = .protecting
    } else {
      mode = .normal
    }
    state.launchesInProgress = kept + [record]
    return LaunchDecision(
      count: count, previousCount: previousCount, countedCrashes: counted, ignored: ignored,
      resetByNewBinary: resetByNewBinary, mode: mode, problems: [], previousCrash: previousCrash)
  }

  /// The launch succeeded: count back to 0, sentinel cleared, escalation forgotten.
  /// A crash after this is never counted.
  public func launchingFinished() {
    guard mode.isLaunching else { return }
    _ = configuration.failpoints.evaluate("launch.finished")
    let (record, resolved): (LaunchRecord?, Set<String>) = inner.withLock { inner in
      guard inner.mode.isLaunching else { return (nil, []) }
      inner.mode = .finished
      // The unfinished launches this launch's decision accounted for (counted, or ignored
      // as rebooted or terminated) are resolved by its success, even if the write that
      // recorded the decision failed.
      let decision = inner.decision
      let accounted =
        (decision?.countedCrashes ?? []) + (decision?.ignored ?? []).filter { $0.reason != .stillRunning }.map(\.record)
      return (inner.record, Set(accounted.map(\.launchID)))
    }
    guard let record else { return }
    deadline?.disarm()
    CrashCapture.markLaunchFinished(true)
    lcc_term_marker_uninstall()
    ExitTracker.shared.untrack(self)
    let (_, problems) = store.update { state in
      state.consecutiveCrashes = 0
      state.attemptedProtectLevel = nil
      state.launchesInProgress.removeAll { $0.launchID == record.launchID || resolved.contains($0.launchID) }
    }
    for problem in problems { emit(.stateProblem(problem)) }
    if configuration.notifyReady { SystemdNotify.send("READY=1\nSTATUS=running") }
    emit(.launchingFinished)
  }

  /// Tells systemd's watchdog this process is alive (`WATCHDOG=1`), when `WATCHDOG_USEC` is
  /// set for it; call it from your main loop at least twice per `SystemdNotify.watchdogInterval`.
  /// Returns false when there is no watchdog to tell.
  @discardableResult
  public func keepAlive() -> Bool {
    guard SystemdNotify.watchdogInterval != nil else { return false }
    return SystemdNotify.send("WATCHDOG=1")
  }

  private func arm(_ phase: LaunchDeadline.Phase) {
    deadline?.arm(phase) { [self] phase, thread in launchHung(phase, thread: thread) }
  }

  /// The deadline passed in `phase`: record why, take the backtraces, end the process so the
  /// next launch counts it (the sentinel is still set).
  private func launchHung(_ phase: LaunchDeadline.Phase, thread: LaunchDeadline.RunningThread) {
    guard inner.withLock({ $0.mode.isLaunching }), let limit = configuration.launchDeadline else { return }
    emit(.launchDeadlineExceeded(phase: phase.rawValue, deadline: limit))
    let cause = CrashCause(
      type: "launch-hang", detail: "the \(phase.rawValue) ran past its \(limit) deadline", pid: getpid(),
      afterLaunch: false, recordedAt: Date().timeIntervalSince1970)
    let (_, problems) = store.update { $0.lastCrashCause = cause.clamped() }
    for problem in problems { emit(.stateProblem(problem)) }
    SystemdNotify.send("STATUS=launch hung in the \(phase.rawValue) past \(limit); aborting")
    if CrashCapture.isInstalled {
      if let main = mainThread, main.id != thread.id { CrashCapture.dumpThread(main.thread, id: main.id) }
      CrashCapture.setCause("launch-hang")
    }
    pthread_kill(thread.thread, SIGABRT)
    // Should SIGABRT be caught and survived, the process must still end.
    sleep(5)
    kill(getpid(), SIGKILL)
  }

  /// What systemd is told when the repair and the relaunch start: each may take the deadline.
  private var extendTimeout: String {
    "EXTEND_TIMEOUT_USEC=\((configuration.launchDeadline ?? configuration.repairTimeExtension).wholeMicroseconds)"
  }

  /// The repair is done: leave protect mode and run the held launch now, in this process.
  /// The launch is still unfinished, so a crash in it counts again (and escalates).
  /// Returns false when not in protect mode.
  @discardableResult
  public func protectFinished() -> Bool {
    guard case .protect = mode else { return false }
    _ = configuration.failpoints.evaluate("protect.finish")
    let taken: (ProtectLevel, @Sendable () -> Void)? = inner.withLock { inner in
      guard case .protect(let level) = inner.mode, let launch = inner.heldLaunch else { return nil }
      inner.mode = .relaunched(after: level)
      inner.heldLaunch = nil
      inner.record?.phase = .relaunching
      return (level, launch)
    }
    guard let (level, launch) = taken else { return false }
    emit(.protectFinish(level: level))
    SystemdNotify.send(
      "STATUS=repair level \(level.number) done; relaunching\n"
        + extendTimeout)
    arm(.relaunch)
    emit(.relaunch)
    _ = configuration.failpoints.evaluate("launch.begin")
    launch()
    return true
  }

  /// Normal mode: runs `action` now. Protect mode: runs `protect` (if any) now and holds
  /// `action` for `performAction(key:)`. Each action runs at most once.
  public func addLifeAction(
    key: String, action: @escaping @Sendable () -> Void, protect: (@Sendable () -> Void)? = nil
  ) {
    let protecting = inner.withLock { inner in
      guard case .protect = inner.mode else { return false }
      inner.heldActions[key] = action
      return true
    }
    if !protecting {
      emit(.lifeAction(key: key, outcome: .ran))
      _ = configuration.failpoints.evaluate("life." + key)
      action()
    } else if let protect {
      emit(.lifeAction(key: key, outcome: .protected))
      protect()
    } else {
      emit(.lifeAction(key: key, outcome: .held))
    }
  }

  /// Runs and forgets the action held for `key`; false when none is held.
  @discardableResult
  public func performAction(key: String) -> Bool {
    guard let action = inner.withLock({ $0.heldActions.removeValue(forKey: key) }) else { return false }
    emit(.lifeAction(key: key, outcome: .performed))
    _ = configuration.failpoints.evaluate("life." + key)
    action()
    return true
  }

  /// Records a cause an external crash reporter saw (the seed's `handleException:`).
  /// It does not change the count: the sentinel already decides that.
  public func handleException(_ type: String, detail: String? = nil) {
    let afterLaunch = mode == .finished
    let cause = CrashCause(
      type: type, detail: detail, pid: getpid(), afterLaunch: afterLaunch, recordedAt: Date().timeIntervalSince1970)
    let (_, problems) = store.update { $0.lastCrashCause = cause.clamped() }
    for problem in problems { emit(.stateProblem(problem)) }
    emit(.exceptionRecorded(cause))
  }

  /// Called by the exit tracker when the process calls `exit(status)`.
  func processExiting(status: Int32) {
    let record = inner.withLock { $0.mode.isLaunching ? $0.record : nil }
    guard status == 0, let record else { return }
    deadline?.disarm()
    _ = store.update { state in
      state.launchesInProgress.removeAll { $0.launchID == record.launchID }
      state.lastUncountedExit = UncountedExit(
        reason: .cleanExit, pid: record.process.pid, decidedAt: Date().timeIntervalSince1970)
    }
    emit(.uncountedExit(.cleanExit))
  }

  private func emit(_ event: LaunchProtectionEvent) {
    for observer in inner.withLock({ $0.observers }) { observer(event) }
  }

  static func terminationMarkerPath(directory: String, _ identity: ProcessIdentity) -> String {
    "\(directory)/terminated-\(identity.pid)-\(identity.startTime)"
  }
}
