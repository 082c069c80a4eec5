import CCrashCapture
import Foundation
import Synchronization

extension LaunchOrganizer {
  /// A stop was requested during the launch (a clean shutdown): recorded durably in this
  /// launch's sentinel, so the next launch does not count it whatever ends this process —
  /// its own SIGTERM, a SIGKILL after a stop timeout, or a crash during shutdown. The launch
  /// deadline no longer applies. Does nothing once the launch finished.
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
    let now = Date().timeIntervalSince1970
    let (_, problems) = store.update { state in
      guard let index = state.launchesInProgress.firstIndex(where: { $0.launchID == record.launchID }) else { return }
      state.launchesInProgress[index].stopRequestedAt = now
    }
    for problem in problems { emit(.stateProblem(problem)) }
    emit(.stopRequested)
  }
}

/// SIGTERM during the launch, for the organizer that is launching: the C handler
/// (`stop_signal.c`) wakes this watcher's thread through a pipe, and the thread records the
/// stop request in the sentinel — a durable write no signal handler may make — then, when
/// the signal's previous action was the default one, ends the process by SIGTERM.
final class StopSignal: Sendable {
  static let shared = StopSignal()

  private struct Watch {
    weak var organizer: LaunchOrganizer?
  }

  private struct State: @unchecked Sendable {
    var wakeWrite: Int32 = -1
    var watch = Watch()
  }

  private let state = Mutex(State())

  /// Installs the handler for `organizer`'s launch (one launch at a time per process).
  func arm(for organizer: LaunchOrganizer) {
    let wakeFD: Int32? = state.withLock { state in
      if state.wakeWrite < 0 {
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else { return nil }
        for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        state.wakeWrite = fds[1]
        startWatcher(readFD: fds[0])
      }
      state.watch = Watch(organizer: organizer)
      return state.wakeWrite
    }
    guard let wakeFD else { return }
    _ = lcc_stop_signal_install(wakeFD)
  }

  /// The launch is over: the handler stops recording and gives SIGTERM back, if it is still the owner.
  func disarm(for organizer: LaunchOrganizer) {
    let current = state.withLock { state -> Bool in
      guard state.watch.organizer === organizer else { return false }
      state.watch = Watch()
      return true
    }
    if current { _ = lcc_stop_signal_uninstall() }
  }

  private func startWatcher(readFD: Int32) {
    QuietThread.start(name: "launch-stop-watcher") { [self] in
      var byte: UInt8 = 0
      while true {
        let count = read(readFD, &byte, 1)
        if count < 0, errno == EINTR { continue }
        guard count == 1 else { return }
        let organizer = state.withLock { $0.watch.organizer }
        organizer?.stopRequested()
        lcc_stop_signal_recorded()
        if lcc_stop_signal_should_terminate() != 0 { lcc_stop_signal_terminate() }
      }
    }
  }
}
