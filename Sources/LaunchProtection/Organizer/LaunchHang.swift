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

/// What happens when the launch deadline passes: the hang is recorded, every thread's stack
/// written, and the process ended by SIGABRT whatever thread runs the phase and whatever
/// signal masks are in force.
extension LaunchOrganizer {
  func arm(_ phase: LaunchPhase, thread: LaunchDeadline.RunningThread?) {
    deadline?.arm(phase, thread: thread) { [self] phase, thread in launchHung(phase, thread: thread) }
  }

  /// Runs on the deadline's own thread. Claims the launch under the lock first, so it can
  /// never fire once `launchingFinished()` or a stop request got there before it.
  private func launchHung(_ phase: LaunchPhase, thread: LaunchDeadline.RunningThread?) {
    let claimed = inner.withLock { inner in
      guard inner.mode.isLaunching, !inner.hung, !inner.stopRequested else { return false }
      inner.hung = true
      inner.lastCause = "launch-hang"
      return true
    }
    guard claimed, let limit = configuration.launchDeadline else { return }
    emit(.launchDeadlineExceeded(phase: phase, deadline: limit))
    let cause = CrashCause(
      type: "launch-hang", detail: "the \(phase.step) ran past its \(limit) deadline", pid: getpid(),
      afterLaunch: false, recordDate: Date())
    let (_, problems) = stateStore.update { $0.lastCrashCause = cause }
    for problem in problems { emit(.stateProblem(problem)) }
    SystemdNotify.send("STATUS=launch hung in the \(phase.step) past \(limit); aborting")
    if CrashCapture.isInstalled {
      // Every thread that can take SIGPROF (the cooperative pool's included) writes its stack.
      _ = lcc_dump_all_threads(200)
      CrashCapture.setCause("launch-hang")
    }
    if let thread {
      // The phase's own thread first, so the crash record is the hung stack; a thread that
      // blocks SIGABRT (a Dispatch worker) never takes it, and the abort below ends the process.
      pthread_kill(thread.thread, SIGABRT)
      usleep(500_000)
    }
    if getpid() == 1 {
      // PID 1 of a PID namespace (a container without an init) never receives a
      // default-action SIGABRT it raises itself, and abort(3) would then end by SIGSEGV from
      // its fallback instruction: run any handler, then exit 134, as a runtime reports SIGABRT.
      raise(SIGABRT)
      lcc_die_by_signal(SIGABRT)
    }
    // abort(3) unblocks SIGABRT on this thread, and if a handler returns, restores the default
    // action and raises again: the process ends by SIGABRT.
    abort()
  }
}
