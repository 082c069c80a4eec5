import CCrashCapture

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// The closure API of the original design (the Objective-C launch organizers'
/// `finishingLaunching:launchAction:protectAction:`, `launchingFinished`, `protectFinish`): the
/// launch and the repair are closures the organizer runs. Async code uses
/// ``LaunchOrganizer/launch(policy:repair:)`` over the same state machine.
extension LaunchOrganizer {
  /// Starts the launch: counts the launches that died unfinished, writes this launch's
  /// sentinel durably, then runs `launch` (normal mode) or `protect` (protect mode, with the
  /// level persisted first). Safe from any thread, also at once: one call begins the launch,
  /// and a second call does nothing.
  ///
  /// - Parameters:
  ///   - policy: when to protect, and the repair levels (``ProtectionPolicy``).
  ///   - launch: the normal launch; in protect mode it is held until ``protectFinished()``.
  ///   - protect: the repair, told the count and the level (``ProtectContext``).
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
  /// A crash after this is never counted; the launch deadline can no longer fire. Safe from
  /// any thread; a second call does nothing.
  public func launchingFinished() {
    guard currentMode.isLaunching else { return }
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

  /// The repair is done: leave protect mode and run the held launch now, in this process.
  /// The launch is still unfinished, so a crash in it counts again (and escalates).
  /// Returns false when not in protect mode, or when the levels are exhausted and the policy
  /// says to stay degraded. Safe from any thread; a second call returns false.
  @discardableResult
  public func protectFinished() -> Bool {
    guard case .protect = currentMode else { return false }
    guard let launch = leaveRepair(thread: .current) else { return false }
    launch()
    return true
  }
}
