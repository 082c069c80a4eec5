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
/// `finishingLaunching:launchAction:protectAction:` → ``finishLaunching(policy:launch:protect:)``,
/// `addLifeActionWithKey:action:protectAction:` → ``addLifeAction(key:action:protect:)``,
/// `doActionWithKey:` → ``performAction(key:)``, `launchingFinished` → ``launchingFinished()``,
/// `protectFinish` → ``protectFinished()``, `handleException:` → ``handleException(_:detail:)``.
/// Async code uses ``launch(policy:repair:)`` and `await` ``markLaunchingFinished()`` over the
/// same state machine; ``stopRequested()`` records a stop from either; ``observe(_:)`` and
/// ``status`` tell what happened.
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
    var observers: [@Sendable (LaunchObservation) -> Void] = []
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

  /// The configuration in force.
  public let configuration: Configuration
  let deadline: LaunchDeadline?
  /// The state store (the tools' and tests' view of the file; `store` before 0.2.0).
  package let stateStore: StateStore
  let launchID = LaunchOrganizer.randomLaunchID()
  let inner = Mutex(Inner())

  /// Creates an organizer; nothing is read or written until `finishLaunching`. Safe from any
  /// thread; organizers may share a state directory (<doc:ThreadsTasksAndProcesses>).
  public init(configuration: Configuration) {
    self.configuration = configuration
    self.deadline = configuration.launchDeadline.map(LaunchDeadline.init)
    self.stateStore = StateStore(
      directory: configuration.stateDirectory, durability: configuration.durability,
      lockTimeout: configuration.lockTimeout, failpoints: configuration.failpoints,
      readerGroup: configuration.readableByGroup)
  }

  /// The directory the state files are kept in: the configured one (the target of a trusted
  /// symlink standing as it), or its private subdirectory `private-<uid>` when other users can
  /// write it (the Security article). Keep the app's own files here rather than in a shared
  /// configured directory. Known once the launch began (`finishLaunching`,
  /// `launch(policy:repair:)`); before it, the configured directory. Safe from any thread.
  public var stateDirectoryInUse: String {
    String(stateStore.statePath.dropLast(StateDirectory.stateName.count + 1))
  }

  /// Convenience for `init(configuration:)` with defaults. Safe from any thread.
  public convenience init(stateDirectory: String) {
    self.init(configuration: Configuration(stateDirectory: stateDirectory))
  }

  /// Adds an observer of everything the organizer tells (``LaunchObservation``): its
  /// transitions, SIGTERM's owners during the launch, its waits for dependencies. Observers are
  /// called on the thread that made the change, outside the organizer's lock; add them before
  /// the launch starts. Safe from any thread; each call adds one more observer.
  ///
  /// - Parameter observer: called once per observation, in order.
  public func observe(_ observer: @escaping @Sendable (LaunchObservation) -> Void) {
    inner.withLock { $0.observers.append(observer) }
  }

  /// The launch's mode with its level (``LaunchStatus/launchMode`` is its public form).
  package var currentMode: LaunchMode { inner.withLock { $0.mode } }

  /// Called by the exit tracker when the process calls `exit(status)`.
  /// The durable end of a finished launch: count 0, escalation forgotten, its sentinel and
  /// those it resolved removed. Idempotent: two threads may both write it.
  func writeFinish(_ finish: PendingFinish) {
    let (_, problems) = stateStore.updateEndingLaunch { state in
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
    _ = stateStore.update { state in
      state.launchesInProgress.removeAll { $0.launchID == record.launchID }
      state.lastUncountedExit = UncountedExit(
        reason: .cleanExit, pid: record.process.pid, decisionDate: Date())
    }
    emit(.uncountedExit(.cleanExit))
  }

  func emit(_ event: LaunchProtectionEvent) {
    tell(LaunchObservation(event: event))
  }

  func emit(_ report: StopSignalReport) {
    tell(LaunchObservation(stopSignal: report))
  }

  func emit(_ wait: DependencyWait) {
    tell(LaunchObservation(dependencyWait: wait))
  }

  private func tell(_ observation: LaunchObservation) {
    for observer in inner.withLock({ $0.observers }) { observer(observation) }
  }
}
