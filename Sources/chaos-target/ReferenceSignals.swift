import ChaosProbe
import Dispatch
import LaunchProtection
import LaunchTasks
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

/// A daemon's own SIGTERM/SIGINT handling, installed before the launch (as a daemon sets up its
/// signals before it announces readiness): once launched, the handler wakes the main thread
/// through a pipe for a clean exit 0; during the launch it takes the default action — after the
/// organizer's handler, installed on top and chaining to it, recorded the stop.
enum TerminationPipe {
  nonisolated(unsafe) static var readEnd: Int32 = -1
  nonisolated(unsafe) static var writeEnd: Int32 = -1

  static func install() {
    var fds: [Int32] = [-1, -1]
    guard pipe(&fds) == 0 else { return }
    readEnd = fds[0]
    writeEnd = fds[1]
    for signal in [SIGTERM, SIGINT] {
      var action = sigaction()
      action.__sigaction_handler.sa_handler = { signal in
        // write(2), getpid(2), _exit(2), signal(2), raise(3): async-signal-safe.
        if CrashCapture.isLaunchFinished {
          var byte: UInt8 = 1
          _ = write(TerminationPipe.writeEnd, &byte, 1)
        } else {
          // PID 1 (a container without an init) drops a default-action signal it sends itself.
          if getpid() == 1 { _exit(128 + signal) }
          Glibc.signal(signal, SIG_DFL)
          raise(signal)
        }
      }
      sigemptyset(&action.sa_mask)
      action.sa_flags = SA_RESTART
      sigaction(signal, &action, nil)
    }
  }
}

/// Keeps a Dispatch signal source alive (Dispatch objects are thread-safe).
struct SignalSourceBox: @unchecked Sendable {
  let source: any DispatchSourceSignal
}

/// An app's own SIGTERM handler that neither chains to the handler before it nor tells the
/// organizer: it starts a graceful shutdown (a byte down a pipe to a thread), which exits 0
/// once the launch finished and waits for it otherwise — a hung launch never completes it.
enum GracefulHandler {
  nonisolated(unsafe) static var writeEnd: Int32 = -1

  static func install(_ organizer: LaunchOrganizer) {
    var fds: [Int32] = [-1, -1]
    guard pipe(&fds) == 0 else { return }
    writeEnd = fds[1]
    let readEnd = fds[0]
    startThread(named: "graceful-shutdown") {
      var byte: UInt8 = 0
      while read(readEnd, &byte, 1) == 1 {
        let finished = organizer.currentMode == .finished
        ChaosProbe.emit("graceful_shutdown", ["launch_finished": finished])
        if finished { exit(0) }
      }
    }
    var action = sigaction()
    action.__sigaction_handler.sa_handler = { _ in
      // write(2): async-signal-safe.
      var byte: UInt8 = 1
      _ = write(GracefulHandler.writeEnd, &byte, 1)
    }
    sigemptyset(&action.sa_mask)
    action.sa_flags = SA_RESTART
    sigaction(SIGTERM, &action, nil)
    ChaosProbe.emit("sigterm_handler_ready")
  }
}

/// `sigterm_signalfd`: SIGTERM blocked in the main thread (and so in every thread made after
/// it) and read through a signalfd, as some servers and runtimes take it: the organizer's
/// handler never runs for it. A thread reads it and shuts down gracefully (event
/// `graceful_shutdown`, exit 0 once the launch finished).
enum SignalfdOwner {
  static func install(_ organizer: LaunchOrganizer) {
    var mask = sigset_t()
    sigemptyset(&mask)
    sigaddset(&mask, SIGTERM)
    guard pthread_sigmask(SIG_BLOCK, &mask, nil) == 0 else { return }
    // signalfd(2) through libc's symbol: Glibc's Swift module does not export it.
    typealias SignalFD = @convention(c) (Int32, UnsafePointer<sigset_t>, Int32) -> Int32
    guard let symbol = dlsym(dlopen(nil, RTLD_NOW), "signalfd") else { return }
    let descriptor = unsafeBitCast(symbol, to: SignalFD.self)(-1, &mask, O_CLOEXEC)
    guard descriptor >= 0 else { return }
    startThread(named: "signalfd") {
      // A signalfd_siginfo is 128 bytes.
      var info = [UInt8](repeating: 0, count: 128)
      while read(descriptor, &info, info.count) == info.count {
        let finished = organizer.currentMode == .finished
        ChaosProbe.emit("graceful_shutdown", ["launch_finished": finished])
        if finished { exit(0) }
      }
    }
  }
}

/// `sigterm_handler: chaining_during_launch`: what many libraries install, a SIGTERM handler
/// that does its own small thing and then calls the handler it replaced. Installed during the
/// launch, it replaces the organizer's; the organizer puts its own back in front, and after
/// the launch a SIGTERM reaches the organizer's handler twice (from the kernel, then from this
/// one), which must end the process by SIGTERM, the action it stood for, exactly once.
enum ChainingHandler {
  nonisolated(unsafe) static var previous = sigaction()

  static func install() {
    var action = sigaction()
    action.__sigaction_handler.sa_sigaction = { signo, info, context in
      // Calls only what the replaced action is: a function pointer call, async-signal-safe.
      let before = ChainingHandler.previous
      if before.sa_flags & SA_SIGINFO != 0 {
        before.__sigaction_handler.sa_sigaction?(signo, info, context)
      } else if let handler = before.__sigaction_handler.sa_handler, unsafeBitCast(handler, to: Int.self) > 1 {
        handler(signo)
      }
    }
    sigemptyset(&action.sa_mask)
    action.sa_flags = SA_SIGINFO | SA_RESTART
    sigaction(SIGTERM, &action, &previous)
    ChaosProbe.emit("sigterm_handler_ready")
  }
}

/// `repair_throws`: the async repair's error at a level.
struct RepairFailed: Error, CustomStringConvertible {
  var level: Int
  var description: String { "the repair at level \(level) failed" }
}
