import CCrashCapture
import Foundation

/// Starts the library's own helper threads (the stop watcher, the launch deadline) with every
/// asynchronous signal blocked, as libdispatch does for its workers: a process-directed
/// SIGTERM or SIGINT must reach the app's threads (or its sigwait), never one of ours, which
/// would then take the default action. Synchronous faults stay deliverable, and SIGPROF, which
/// the thread dumps use.
enum QuietThread {
  static func start(name: String, _ body: @escaping @Sendable () -> Void) {
    var quiet = sigset_t()
    sigfillset(&quiet)
    for signal in [SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGTRAP, SIGSYS, SIGABRT, SIGPROF] { sigdelset(&quiet, signal) }
    var previous = sigset_t()
    // The new thread inherits the creating thread's mask: block, start, restore.
    pthread_sigmask(SIG_BLOCK, &quiet, &previous)
    // Foundation's `Thread.name` does not reach the kernel on Linux: the name is set from the
    // thread itself, so it shows in /proc, gdb, top and crash records' thread names.
    let thread = Thread {
      lcc_name_current_thread(name)
      body()
    }
    thread.name = name
    thread.start()
    pthread_sigmask(SIG_SETMASK, &previous, nil)
  }
}
