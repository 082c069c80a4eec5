import ChaosProbe

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// `reexec_during_launch`: the app replaces its image with its own executable once, in the
/// middle of a launch (as an app upgrading itself in place does). `execv` keeps the pid and the
/// start time, so the new image is the process the old image's unfinished launch names.
enum Reexec {
  /// Set in the new image's environment, so it launches instead of executing itself again.
  static let marker = "CHAOS_TARGET_REEXECUTED"

  static func once() {
    guard getenv(marker) == nil else { return }
    ChaosProbe.emit("reexec", ["pid": Int(getpid())])
    setenv(marker, "1", 1)
    execv("/proc/self/exe", CommandLine.unsafeArgv)
    ChaosProbe.emit("reexec_failed", ["errno": Int(errno)])
    exit(6)
  }
}

/// `report_sigterm_action`: SIGTERM's action as `sigaction` reports it, compared by its handler
/// (or `SIG_DFL`/`SIG_IGN`) and whether it takes `siginfo`.
struct SigtermAction: Equatable {
  var handler: Int
  var takesInfo: Bool

  static func current() -> SigtermAction {
    var action = sigaction()
    sigaction(SIGTERM, nil, &action)
    return SigtermAction(
      handler: unsafeBitCast(action.__sigaction_handler.sa_handler, to: Int.self),
      takesInfo: action.sa_flags & SA_SIGINFO != 0)
  }
}
