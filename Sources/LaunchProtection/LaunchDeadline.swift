import CCrashCapture
import Foundation
import Synchronization

/// The launch deadline's timer: armed when a phase starts (launch, repair, relaunch) on the
/// thread that runs it, disarmed by the next phase or `launchingFinished()`. When it fires the
/// phase is still running: the organizer records the hang and ends the process.
final class LaunchDeadline: Sendable {
  /// Which part of the launch was running.
  enum Phase: String, Sendable {
    case launch, repair, relaunch
  }

  /// The thread a phase runs on, as the signal functions need it.
  struct RunningThread: @unchecked Sendable {
    var thread: pthread_t
    var id: pid_t

    static var current: RunningThread { RunningThread(thread: pthread_self(), id: lcc_current_thread_id()) }
  }

  private struct Armed {
    var generation = 0
    var active = false
  }

  let duration: Duration
  private let armed = Mutex(Armed())

  init(duration: Duration) {
    self.duration = duration
  }

  /// Starts (or restarts) the deadline for `phase`, run by the calling thread; `onExpiry` runs
  /// on a timer thread if it passes before the next `arm` or `disarm`.
  func arm(_ phase: Phase, onExpiry: @escaping @Sendable (Phase, RunningThread) -> Void) {
    let thread = RunningThread.current
    let generation = armed.withLock { armed in
      armed.generation += 1
      armed.active = true
      return armed.generation
    }
    DispatchQueue.global().asyncAfter(deadline: .now() + .microseconds(Int(duration.wholeMicroseconds))) { [self] in
      let expired = armed.withLock { $0.active && $0.generation == generation }
      if expired { onExpiry(phase, thread) }
    }
  }

  /// The launch finished (or the process is leaving): no deadline any more.
  func disarm() {
    armed.withLock { armed in
      armed.generation += 1
      armed.active = false
    }
  }
}
