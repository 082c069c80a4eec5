import Foundation
import LaunchProtection

/// SIGTERM/SIGINT: kvd's own handler, installed before the launch as a daemon sets up its
/// signals before it announces readiness, so no SIGTERM falls between the launch finishing
/// and the handler existing (as PID 1 of a container, one with no handler is dropped).
/// Once launched, it writes one byte to a pipe the main thread waits on: a clean shutdown.
/// During the launch it ends the process as the default action would — after the organizer's
/// handler, in front of it, recorded the stop — with exit status 128+N as PID 1, where the
/// kernel drops a default-action signal the process sends itself.
enum Shutdown {
  nonisolated(unsafe) private static var wakeFD: Int32 = -1
  nonisolated(unsafe) private static var readFD: Int32 = -1

  static func install() {
    var fds: [Int32] = [-1, -1]
    pipe(&fds)
    readFD = fds[0]
    wakeFD = fds[1]
    for signal in [SIGTERM, SIGINT] {
      var action = sigaction()
      action.__sigaction_handler.sa_handler = { signal in
        // write(2), getpid(2), _exit(2), signal(2), raise(3): async-signal-safe.
        if CrashCapture.isLaunchFinished {
          var byte: UInt8 = 1
          _ = write(Shutdown.wakeFD, &byte, 1)
        } else {
          if getpid() == 1 { _exit(128 + signal) }
          Glibc.signal(signal, SIG_DFL)
          raise(signal)
        }
      }
      sigemptyset(&action.sa_mask)
      sigaction(signal, &action, nil)
    }
    // A parent may have started us with these blocked (the mask is inherited across exec).
    var signals = sigset_t()
    sigemptyset(&signals)
    sigaddset(&signals, SIGTERM)
    sigaddset(&signals, SIGINT)
    pthread_sigmask(SIG_UNBLOCK, &signals, nil)
  }

  /// Blocks until SIGTERM or SIGINT came after the launch.
  static func waitForTermination() {
    var byte: UInt8 = 0
    while read(readFD, &byte, 1) < 0 && errno == EINTR {}
  }
}
