import CCrashCapture
import Failpoints
import Synchronization

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

/// What a repair is told when protect mode starts.
public struct ProtectContext: Sendable {
  /// Consecutive launch crashes, including the one that triggered this.
  public var count: Int
  /// The level being attempted (already persisted).
  public var level: ProtectLevel
  /// The last level was attempted and the launch died again: the policy's `exhausted` action
  /// applies (with `.stayDegraded` the repair runs and `protectFinished()` is refused; with
  /// the default `.repeatLastLevel` the last level runs again as usual).
  public var exhausted: Bool = false
}

/// Launch-crash protection: counts consecutive launches that died before
/// `launchingFinished()`, enters protect mode on the app's policy, and runs the held launch
/// in-process once the repair calls `protectFinished()`.
///
/// The Objective-C launch organizers' calls, in Swift:
/// `finishingLaunching:launchAction:protectAction:` → `finishLaunching(shouldProtect:launch:protect:)`,
/// `addLifeActionWithKey:action:protectAction:` → `addLifeAction(key:action:protect:)`,
/// `doActionWithKey:` → `performAction(key:)`, `launchingFinished`, `protectFinish` →
/// `protectFinished()`, `handleException:` → `handleException(_:detail:)`. Async code uses
/// `launch(policy:repair:)` and `await markLaunchingFinished()` over the same state machine.
///
/// Instance-based and thread-safe. Closures run on the calling thread, outside any lock.
public final class LaunchOrganizer: Sendable {
  struct Inner {
    var mode: LaunchMode = .idle
    var record: LaunchRecord?
    var decision: LaunchDecision?
    /// Past the last level with a policy that stays degraded: the held launch never runs.
    var degraded = false
    var heldLaunch: (@Sendable () -> Void)?
    var heldActions: [String: @Sendable () -> Void] = [:]
    var observers: [@Sendable (LaunchProtectionEvent) -> Void] = []
    var stopSignalObservers: [@Sendable (StopSignalReport) -> Void] = []
    var dependencyObservers: [@Sendable (DependencyWait) -> Void] = []
    /// The deadline fired: the process is ending, the launch can no longer finish.
    var hung = false
    /// A stop was requested during the launch: the deadline no longer applies.
    var stopRequested = false
    /// When `mode` last changed (``LaunchStatus/since``).
    var since = Date()
    /// The last crash cause type known to this process (``LaunchStatus/lastCause``).
    var lastCause: String?
    /// `launchingFinished()` claimed the launch and is writing its end: until that write is
    /// done, an `exit` or a stop on another thread writes it too (see `completePendingFinish`).
    var pendingFinish: PendingFinish?
    /// The dependencies `waitForDependency` waits for now (a name once per wait under way).
    var waits: [String] = []
    /// The dependencies whose last wait threw: the launch stays held by them.
    var failedDependencies: [String] = []
    /// The previous launches' outage, as this launch found it (``LaunchStatus/dependencyOutage``).
    var outage: DependencyOutage?
  }

  /// The durable end of a finished launch, while `launchingFinished()` writes it.
  struct PendingFinish {
    /// The finished launch's record.
    var record: LaunchRecord
    /// The unfinished launches its decision accounted for, resolved by its success.
    var resolved: [String]
    /// The thread writing it (`gettid`).
    var thread: pid_t
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
  let deadline: LaunchDeadline?
  /// The state store (readable by tools and tests).
  public let store: StateStore
  let launchID = LaunchOrganizer.randomLaunchID()
  let inner = Mutex(Inner())

  /// Creates an organizer; nothing is read or written until `finishLaunching`.
  public init(configuration: Configuration) {
    self.configuration = configuration
    self.deadline = configuration.launchDeadline.map(LaunchDeadline.init)
    self.store = StateStore(
      directory: configuration.stateDirectory, durability: configuration.durability,
      lockTimeout: configuration.lockTimeout, failpoints: configuration.failpoints)
  }

  /// Convenience for `init(configuration:)` with defaults.
  public convenience init(stateDirectory: String) {
    self.init(configuration: Configuration(stateDirectory: stateDirectory))
  }

  /// Adds an observer of every transition. Add observers before `finishLaunching`.
  public func addObserver(_ observer: @escaping @Sendable (LaunchProtectionEvent) -> Void) {
    inner.withLock { $0.observers.append(observer) }
  }

  /// Adds an observer of who receives SIGTERM during the launch, told once per owner and
  /// launch when it is not the usual case (``StopSignalReport``): SIGTERM ignored, read where
  /// the organizer cannot see it, or taken by a new owner during the launch. Log what it says.
  public func addStopSignalObserver(_ observer: @escaping @Sendable (StopSignalReport) -> Void) {
    inner.withLock { $0.stopSignalObservers.append(observer) }
  }

  /// Adds an observer of the launch's waits for dependencies (``DependencyWait``: a wait began,
  /// its dependency answered, or it did not). Add observers before `finishLaunching`.
  public func addDependencyObserver(_ observer: @escaping @Sendable (DependencyWait) -> Void) {
    inner.withLock { $0.dependencyObservers.append(observer) }
  }

  /// The current mode.
  public var mode: LaunchMode { inner.withLock { $0.mode } }

  /// Why this launch's count is what it is; nil before `finishLaunching`.
  public var decision: LaunchDecision? { inner.withLock { $0.decision } }

  /// The closure form: `shouldProtect(count)` decides; true runs `protect` and holds `launch`.
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
    let thread = LaunchDeadline.RunningThread.current
    switch begin(policy: policy, heldLaunch: launch) {
    case .alreadyStarted: return
    case .normal:
      enterLaunch(thread: thread)
      launch()
    case .protect(let context):
      enterRepair(context, thread: thread)
      protect(context)
    }
  }

  /// The launch succeeded: count back to 0, sentinel cleared, escalation forgotten.
  /// A crash after this is never counted; the launch deadline can no longer fire.
  public func launchingFinished() {
    guard mode.isLaunching else { return }
    _ = configuration.failpoints.evaluate("launch.finished")
    let finish: PendingFinish? = inner.withLock { inner in
      guard inner.mode.isLaunching, !inner.hung else { return nil }
      inner.mode = .finished
      inner.since = Date()
      guard let record = inner.record else { return nil }
      // The unfinished launches this launch's decision accounted for (counted, or ignored
      // as rebooted or stopped) are resolved by its success, even if the write that
      // recorded the decision failed. A list, not a Set: it holds a launch id or a few.
      var resolved: [String] = []
      for counted in inner.decision?.countedCrashes ?? [] { resolved.append(counted.launchID) }
      for ignored in inner.decision?.ignored ?? [] where ignored.reason != .stillRunning {
        resolved.append(ignored.record.launchID)
      }
      for outage in inner.decision?.dependencyOutages ?? [] { resolved.append(outage.launchID) }
      let finish = PendingFinish(record: record, resolved: resolved, thread: lcc_current_thread_id())
      inner.pendingFinish = finish
      return finish
    }
    guard let finish else { return }
    deadline?.disarm()
    CrashCapture.markLaunchFinished(true)
    // Written before SIGTERM is given back and before `exit` stops being watched: from the
    // claim above to the end of this write, a stop or an exit on another thread finishes the
    // write itself (completePendingFinish) before the process can end, so a launch that
    // finished is never counted.
    writeFinish(finish)
    inner.withLock { $0.pendingFinish = nil }
    if configuration.ignoreTermination { StopSignal.shared.disarm(for: self) }
    ExitTracker.shared.untrack(self)
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

  /// The repair is done: leave protect mode and run the held launch now, in this process.
  /// The launch is still unfinished, so a crash in it counts again (and escalates).
  /// Returns false when not in protect mode, or when the levels are exhausted and the policy
  /// says to stay degraded.
  @discardableResult
  public func protectFinished() -> Bool {
    guard case .protect = mode else { return false }
    guard let launch = leaveRepair(thread: .current) else { return false }
    launch()
    return true
  }

  /// Called by the exit tracker when the process calls `exit(status)`.
  /// The durable end of a finished launch: count 0, escalation forgotten, its sentinel and
  /// those it resolved removed. Idempotent: two threads may both write it.
  private func writeFinish(_ finish: PendingFinish) {
    let (_, problems) = store.update { state in
      state.consecutiveCrashes = 0
      state.attemptedProtectLevel = nil
      state.lastDependencyOutage = nil
      state.launchesInProgress.removeAll {
        $0.launchID == finish.record.launchID || finish.resolved.contains($0.launchID)
      }
    }
    for problem in problems { emit(.stateProblem(problem)) }
  }

  /// Called where the process may be about to end (`exit`, a stop that terminates): if
  /// `launchingFinished()` claimed the launch on another thread and has not written its end
  /// yet, writes it from here, so the process cannot end between the claim and the write
  /// with the sentinel still set (the next launch would count a launch that finished).
  func completePendingFinish() {
    let pending = inner.withLock { $0.pendingFinish }
    guard let pending, pending.thread != lcc_current_thread_id() else { return }
    writeFinish(pending)
  }

  func processExiting(status: Int32) {
    completePendingFinish()
    if inner.withLock({ $0.hung }) {
      // The deadline fired and is ending the process by SIGABRT: an exit racing it (the hung
      // code woke up) must neither be taken as clean nor end the process with another status.
      while true { pause() }
    }
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

  func emit(_ event: LaunchProtectionEvent) {
    for observer in inner.withLock({ $0.observers }) { observer(event) }
  }

  func emit(_ report: StopSignalReport) {
    for observer in inner.withLock({ $0.stopSignalObservers }) { observer(report) }
  }

  func emit(_ wait: DependencyWait) {
    for observer in inner.withLock({ $0.dependencyObservers }) { observer(wait) }
  }
}
