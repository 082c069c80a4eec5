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

extension LaunchOrganizer {
  /// A stop was requested during the launch (a clean shutdown): recorded durably in this
  /// launch's sentinel, so the next launch does not count it whatever ends this process —
  /// its own SIGTERM, a SIGKILL after a stop timeout, or a crash during shutdown. The launch
  /// deadline no longer applies. Does nothing once the launch finished. Safe from any thread;
  /// a second call does nothing.
  ///
  /// The organizer's own SIGTERM handler calls this (through a watcher thread, not from the
  /// handler) while it is SIGTERM's handler or is chained to; call it from your own shutdown
  /// path when something else receives the signal (`LaunchProtectionService` does, on
  /// ServiceLifecycle's graceful shutdown).
  public func stopRequested() {
    let record: LaunchRecord? = inner.withLock { inner in
      guard inner.mode.isLaunching, !inner.hung, !inner.stopRequested, let record = inner.record else { return nil }
      inner.stopRequested = true
      return record
    }
    guard let record else { return }
    deadline?.disarm()
    let now = Date()
    let (_, problems) = stateStore.update { state in
      guard let index = state.launchesInProgress.firstIndex(where: { $0.launchID == record.launchID }) else { return }
      state.launchesInProgress[index].stopRequestDate = now
    }
    for problem in problems { emit(.stateProblem(problem)) }
    emit(.stopRequested)
  }

  /// Declares that this app's shutdown path calls ``stopRequested()`` whoever receives
  /// SIGTERM (a ServiceLifecycle `Service` on graceful shutdown, a Vapor lifecycle handler):
  /// a SIGTERM owner made during the launch then loses no stop in the moment before the
  /// organizer adopts it, and its ``StopSignalReport`` is no warning
  /// (``StopSignalReport/stopCanGoUnrecorded`` is false). `ServerLaunch` declares it; call it
  /// before the launch starts, and only when that path really exists.
  ///
  /// ```swift
  /// organizer.declareShutdownPath()
  /// app.running?.onStop.whenComplete { _ in organizer.stopRequested() }  // Vapor 4's shutdown path
  /// ```
  public func declareShutdownPath() {
    ShutdownPaths.declare(self)
  }

  /// Looks at SIGTERM's owner now, on the caller's thread, instead of at the watcher's next
  /// look (every half millisecond): a service that runs right after its group made a signal
  /// source (``LaunchProtectionService``, `ServerLaunch`) calls it first, which shortens the
  /// window in which a SIGTERM reaches that source alone. Nothing happens outside a launch.
  package func adoptStopSignalOwner() {
    StopSignal.shared.checkOwner(for: self)
  }

  /// Whether ``declareShutdownPath()`` was called for this organizer.
  public var hasDeclaredShutdownPath: Bool {
    ShutdownPaths.isDeclared(self)
  }
}
