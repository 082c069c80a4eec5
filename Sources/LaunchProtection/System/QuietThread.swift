import CCrashCapture

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// Starts the library's own helper threads (the stop watcher, the launch deadline) with every
/// asynchronous signal blocked, as libdispatch does for its workers: a process-directed
/// SIGTERM or SIGINT must reach the app's threads (or its sigwait), never one of ours, which
/// would then take the default action. Synchronous faults stay deliverable, and SIGPROF, which
/// the thread dumps use.
///
/// A bare detached pthread, not Foundation's `Thread`: this runs on a fresh process's launch
/// path, where `Thread`'s set-up (its object, its name, a malloc arena made by the new
/// thread's first allocation) cost about as much as the rest of the launch.
///
/// The new thread allocates nothing before its body does: glibc gives a thread's first
/// `malloc` (or `free`) an arena of its own (a 128 MiB `mmap`, two `munmap`s, an `mprotect`
/// and the faults of a fresh heap), and the stop watcher, which allocates nothing while it
/// waits, then never makes one. Its name used to be converted to a C string on the new thread
/// (that first allocation): about 5% of a fresh static program's start-to-exit on a loaded
/// machine (`chaos bench --only whole-process`).
enum QuietThread {
  private final class Work {
    /// The name as a C string, converted by the creating thread (a `String` passed to C on the
    /// new thread is copied into a fresh array there: its first allocation).
    let name: [CChar]
    let body: @Sendable () -> Void
    init(name: String, body: @escaping @Sendable () -> Void) {
      self.name = Array(name.utf8CString)
      self.body = body
    }
  }

  /// Starts `body` on a new detached thread named `name` (up to 15 bytes reach the kernel).
  /// Returns false when the thread could not be created.
  @discardableResult
  static func start(name: String, _ body: @escaping @Sendable () -> Void) -> Bool {
    var quiet = sigset_t()
    sigfillset(&quiet)
    for signal in [SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGTRAP, SIGSYS, SIGABRT, SIGPROF] { sigdelset(&quiet, signal) }
    var previous = sigset_t()
    var attributes = pthread_attr_t()
    pthread_attr_init(&attributes)
    defer { pthread_attr_destroy(&attributes) }
    pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
    let work = Unmanaged.passRetained(Work(name: name, body: body)).toOpaque()
    var thread = pthread_t()
    // The new thread inherits the creating thread's mask: block, start, restore.
    pthread_sigmask(SIG_BLOCK, &quiet, &previous)
    let created = pthread_create(
      &thread, &attributes,
      { context in
        let work = Unmanaged<Work>.fromOpaque(context!).takeRetainedValue()
        // Named from the thread itself, so it shows in /proc, gdb, top and crash records.
        work.name.withUnsafeBufferPointer { lcc_name_current_thread($0.baseAddress) }
        work.body()
        return nil
      }, work)
    pthread_sigmask(SIG_SETMASK, &previous, nil)
    if created != 0 { Unmanaged<Work>.fromOpaque(work).release() }
    return created == 0
  }
}
