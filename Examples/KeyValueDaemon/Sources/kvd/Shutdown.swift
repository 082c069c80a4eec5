import Foundation

/// SIGTERM/SIGINT after the launch: a clean shutdown. A handler (any thread may take the
/// signal) writes one byte to a pipe the main thread waits on; write(2) is async-signal-safe.
enum Shutdown {
  nonisolated(unsafe) private static var wakeFD: Int32 = -1

  static func waitForTermination() {
    var fds: [Int32] = [-1, -1]
    pipe(&fds)
    wakeFD = fds[1]
    for signal in [SIGTERM, SIGINT] {
      var action = sigaction()
      action.__sigaction_handler.sa_handler = { _ in
        var byte: UInt8 = 1
        _ = write(Shutdown.wakeFD, &byte, 1)
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
    var byte: UInt8 = 0
    while read(fds[0], &byte, 1) < 0 && errno == EINTR {}
  }
}
