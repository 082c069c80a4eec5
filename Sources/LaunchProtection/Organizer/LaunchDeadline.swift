import CCrashCapture
import Failpoints
import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// The launch deadline's timer: armed when a phase starts (launch, repair, relaunch),
/// disarmed by the next phase, `launchingFinished()` or a stop request, paused while the
/// launch waits for a dependency. It runs on a thread of
/// its own — never a Dispatch or cooperative-pool worker, whose signal masks and scheduling
/// are not ours — and calls `onExpiry` there when a phase outlives it.
final class LaunchDeadline: Sendable {
  /// The thread a phase runs on (the closure API's caller), to end it first with SIGABRT so the
  /// crash record is its stack; unknown (nil) for the async API.
  struct RunningThread: @unchecked Sendable {
    var thread: pthread_t
    var id: pid_t

    static var current: RunningThread { RunningThread(thread: pthread_self(), id: lcc_current_thread_id()) }
  }

  private struct Armed: @unchecked Sendable {
    var generation = 0
    var phase: LaunchPhase?
    var thread: RunningThread?
    var expiresAt: UInt64 = 0
    var onExpiry: (@Sendable (LaunchPhase, RunningThread?) -> Void)?
    var watcherStarted = false
    /// Paused while the launch waits for a dependency: `remaining` is the phase's budget left.
    var paused = false
    var remaining: UInt64 = 0
  }

  let duration: Duration
  private let armed = Mutex(Armed())
  private let wake = WakeSignal()

  init(duration: Duration) {
    self.duration = duration
  }

  /// Starts (or restarts) the deadline for `phase`.
  func arm(
    _ phase: LaunchPhase, thread: RunningThread?, onExpiry: @escaping @Sendable (LaunchPhase, RunningThread?) -> Void
  ) {
    let nanoseconds = UInt64(max(0, duration.wholeMicroseconds)) * 1000
    let startWatcher = armed.withLock { armed in
      armed.generation += 1
      armed.phase = phase
      armed.thread = thread
      if armed.paused {
        armed.remaining = nanoseconds
      } else {
        armed.expiresAt = MonotonicClock.nanoseconds() + nanoseconds
      }
      armed.onExpiry = onExpiry
      defer { armed.watcherStarted = true }
      return !armed.watcherStarted
    }
    if startWatcher { start() } else { wake.signal() }
  }

  /// No deadline any more (until the next `arm`).
  func disarm() {
    armed.withLock { armed in
      armed.generation += 1
      armed.phase = nil
      armed.onExpiry = nil
    }
    wake.signal()
  }

  /// Stops the clock (the launch waits for a dependency): the time until `resume()` is not
  /// charged to the phase. Not nested: the organizer pauses once for all its waits.
  func pause() {
    armed.withLock { armed in
      guard !armed.paused else { return }
      armed.paused = true
      armed.generation += 1
      let now = MonotonicClock.nanoseconds()
      armed.remaining = armed.expiresAt > now ? armed.expiresAt - now : 0
    }
    wake.signal()
  }

  /// Starts the clock again with the budget the phase had left when it was paused.
  func resume() {
    armed.withLock { armed in
      guard armed.paused else { return }
      armed.paused = false
      armed.generation += 1
      armed.expiresAt = MonotonicClock.nanoseconds() + armed.remaining
    }
    wake.signal()
  }

  private func start() {
    QuietThread.start(name: "launch-deadline") { [self] in watch() }
  }

  /// Waits for the armed phase's expiry; a re-arm or disarm wakes it to look again.
  private func watch() {
    while true {
      // Disarmed: the thread ends (a later `arm` starts another). An organizer per test of an
      // app's suite used to leave a thread each, waiting for ever.
      let current = armed.withLock { armed -> Armed? in
        guard armed.phase != nil || armed.paused else {
          armed.watcherStarted = false
          return nil
        }
        return armed
      }
      guard let snapshot = current else { return }
      guard let phase = snapshot.phase, !snapshot.paused else {
        wake.wait()
        continue
      }
      if wake.wait(until: snapshot.expiresAt) { continue }
      let expired: (@Sendable (LaunchPhase, RunningThread?) -> Void)? = armed.withLock { armed in
        guard armed.generation == snapshot.generation, armed.phase != nil, !armed.paused else { return nil }
        armed.phase = nil
        return armed.onExpiry
      }
      expired?(phase, snapshot.thread)
    }
  }
}
