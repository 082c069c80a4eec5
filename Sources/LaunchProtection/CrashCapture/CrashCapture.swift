import CCrashCapture
import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// Why crash capture could not be installed.
public struct CrashCaptureError: Error, CustomStringConvertible {
  /// What went wrong, from the installer.
  public var description: String
}

/// The async-signal-safe crash handler: on SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT and SIGTRAP
/// it walks the crashing thread's stack with libunwind and writes one NDJSON `crash` record
/// (raw PCs plus the module map captured at install; symbolize later, out of process), then
/// hands the signal on so the process still dies by it.
public enum CrashCapture {
  /// Installation options.
  public struct Options: Sendable {
    /// A file descriptor the `crash` line is appended to (e.g. the events file).
    public var eventsFileDescriptor: Int32?
    /// A directory (usually the organizer's state directory) where the handler drops a crash
    /// report, so the next launch knows why this one died. It is opened and checked at install
    /// under the state directory's trust rule (made private, 0700, when missing; its private
    /// subdirectory when other users can write it); a report is a private file (0600).
    public var reportDirectory: String?
    /// A group that may read the crash reports (mode 0640; a monitoring agent); nil (default):
    /// only the owner. Set it as ``LaunchOrganizer/Configuration/readableByGroup`` is set.
    public var reportReaderGroup: UInt32?
    /// Frames recorded at most; past it the first frames and the last min(max/4, 32) are kept.
    public var maxFrames = 128
    /// Frames libunwind steps through (each step is paid before the process may die; see
    /// ChaosKit's Benchmarks) before a deeper stack, a runaway recursion, is followed by its frame pointers to the
    /// thread's bottom: two loads a frame, and functions without a frame pointer are skipped
    /// (`CrashRecord.framesByFramePointers`). Where the chain cannot reach the bottom (a
    /// thread that `prepareAllThreads` reached, code without frame pointers), libunwind goes on.
    public var maxFramesWalked = 512
    /// Hand the signal to the handler installed before (e.g. the Swift runtime's backtracer)
    /// instead of the default action.
    public var chainToPreviousHandler = true
    /// The signals caught.
    public var signals: [Int32] = [SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP]
    /// Bytes of each thread's alternate signal stack.
    public var alternateStackSize = 256 * 1024
    /// Map the unwind tables of the executable, the Swift runtime and libc into memory at
    /// install, so the first crash's lookups take no page faults (or disk reads, if the pages
    /// were evicted). Turn off to shave launch time (the costs: ChaosKit's Benchmarks).
    public var prefaultUnwindTables = true

    /// Default options: no destination yet.
    public init() {}
  }

  /// Installs the handler and gives the calling thread an alternate signal stack.
  ///
  /// Safe from any thread, any number of times, also at once: the process has one handler.
  /// The first install puts it on each signal, keeping the handler that was there to chain to.
  /// A later one shares it: its options replace the earlier ones (the latest destinations
  /// get the next crash), and it never puts the handler on a signal a second time nor
  /// replaces a handler installed after ours. Each install is undone by one ``uninstall()``.
  ///
  /// On x86_64 and aarch64 Linux. The aarch64 handler is checked under qemu-user by
  /// `CI/aarch64-crash-check` (SIGSEGV, abort, a `brk` trap, a stack overflow on a second
  /// thread); on another architecture it throws.
  public static func install(_ options: Options) throws(CrashCaptureError) {
    try install(options, unlessInstalled: false)
  }

  /// `install(options)`, or nothing when the handler is already installed (decided under the
  /// install lock): the first of several `ServerLaunch` made at once keeps its destinations.
  /// Returns whether this call installed it.
  @discardableResult
  package static func installUnlessInstalled(_ options: Options) throws(CrashCaptureError) -> Bool {
    try install(options, unlessInstalled: true)
  }

  @discardableResult
  private static func install(_ options: Options, unlessInstalled: Bool) throws(CrashCaptureError) -> Bool {
    if let problem = unverifiedArchitecture { throw CrashCaptureError(description: problem) }
    // One install at a time in this process: the C side serialises its own work, and the
    // report directory's descriptor it keeps must be the one this side remembers.
    return try installation.withLock { (installedFD: inout Int32) throws(CrashCaptureError) -> Bool in
      if unlessInstalled && isInstalled { return false }
      try installLocked(options, installedReportDirectory: &installedFD)
      return true
    }
  }

  private static func installLocked(
    _ options: Options, installedReportDirectory installed: inout Int32
  ) throws(CrashCaptureError) {
    // The report directory is opened and checked as the state store opens it; one it refuses
    // (another user's, an untrusted symlink) or cannot open is an error the app sees, as is any refusal.
    var notices: [StateProblem] = []
    var reportDirectory: StateDirectory?
    if let directory = options.reportDirectory {
      switch StateDirectory.open(directory, create: true, readerGroup: options.reportReaderGroup, notices: &notices) {
      case .success(let opened): reportDirectory = opened
      case .failure(let problem): throw CrashCaptureError(description: "crash report directory: \(problem)")
      }
    }
    let report = reportDirectory.map { _ in reportName(identity: SystemProcessFacts.currentIdentity) }
    var error = [CChar](repeating: 0, count: 512)
    let signals = options.signals.reduce(UInt64(0)) { $0 | (1 << UInt64($1)) }
    let result = (report ?? "").withCString { name in
      var raw = lcc_options(
        events_fd: options.eventsFileDescriptor ?? -1, report_directory_fd: reportDirectory?.fd ?? -1,
        report_name: name, report_group: options.reportReaderGroup.map { Int64($0) } ?? -1,
        max_frames: Int32(options.maxFrames), chain: options.chainToPreviousHandler ? 1 : 0, signals: signals,
        alt_stack_size: options.alternateStackSize, skip_prefault: options.prefaultUnwindTables ? 0 : 1,
        max_walk: Int32(clamping: options.maxFramesWalked))
      return lcc_install(&raw, &error, error.count)
    }
    // The handler keeps the new directory's descriptor; the one it replaced is closed.
    let replaced = result == 0 ? installed : reportDirectory?.fd ?? -1
    if result == 0 { installed = reportDirectory?.fd ?? -1 }
    if replaced >= 0 { close(replaced) }
    guard result == 0 else {
      throw CrashCaptureError(
        description: String(decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
    }
  }

  /// Why `install` refuses on this architecture, or nil where the handler is verified.
  static var unverifiedArchitecture: String? {
    #if arch(x86_64) || arch(arm64)
      nil
    #else
      """
      crash capture is verified on x86_64 and aarch64 Linux only: on this architecture the stack \
      walk from a signal frame (libunwind's signal-frame cursor, the rerouted libunwind imports, the \
      thread-local storage it is given) has never run, so it is not installed
      """
    #endif
  }

  /// Undoes one ``install(_:)``. The last one restores the handlers that were there before,
  /// on each signal where ours is still the handler (a later handler keeps its place).
  /// Safe from any thread; more calls than installs do nothing.
  public static func uninstall() { installation.withLock { _ in lcc_uninstall() } }

  /// Whether the handler is installed.
  public static var isInstalled: Bool { lcc_is_installed() != 0 }

  /// Gives the calling thread an alternate signal stack, so a stack overflow on it is caught.
  /// Call once at the start of every thread you create (LaunchTasks' workers do); a second
  /// call on the same thread keeps the stack it has.
  @discardableResult
  public static func prepareCurrentThread() -> Bool { lcc_prepare_current_thread() == 0 }

  /// Gives every thread of the process an alternate signal stack, threads the app did not
  /// create included (NIO event loops, the Swift concurrency pool, Dispatch workers): each is
  /// asked through SIGPROF, which Dispatch's workers leave unblocked, to set up its own. Call
  /// it once the app's threads exist (`LaunchProtectionService` does when the launch
  /// finishes). Threads created afterwards are not covered until it is called again; a thread
  /// that blocks SIGPROF is never covered. Returns how many other threads now have one, or
  /// nil when the current thread could not get one. Safe from any thread: calls made at once
  /// take turns.
  @discardableResult
  public static func prepareAllThreads(timeoutMilliseconds: Int32 = 100) -> Int? {
    let answered = lcc_prepare_all_threads(timeoutMilliseconds)
    return answered < 0 ? nil : Int(answered)
  }

  /// Re-captures the module map after loading code with `dlopen`. Safe from any thread.
  @discardableResult
  public static func refreshModules() -> Bool { lcc_refresh_modules() == 0 }

  /// Walks and formats the calling thread's stack exactly as a crash would (writing nothing)
  /// and returns the nanoseconds it took; nil when not installed. `chaos bench`'s warm path.
  package static func timeStackWalk() -> UInt64? {
    let nanoseconds = lcc_benchmark_walk()
    return nanoseconds < 0 ? nil : UInt64(nanoseconds)
  }

  /// Benchmark helper: the nanoseconds a crash's stack walk takes; nil when not installed.
  @available(*, deprecated, message: "a benchmark's hook, no longer public API")
  public static func benchmarkWalk() -> UInt64? { timeStackWalk() }

  static func markLaunchFinished(_ finished: Bool) { lcc_set_launch_finished(finished ? 1 : 0) }

  /// Whether the launch finished (`launchingFinished()` ran; with several organizers, each
  /// launch that began finished): lock-free atomic reads, safe in a signal handler — for an
  /// app's own SIGTERM handler, which must exit cleanly once launched and die by the signal
  /// before that. Set before the organizer gives SIGTERM back.
  public static var isLaunchFinished: Bool { lcc_launch_finished() != 0 }

  /// How many launches of this process began and have not finished (one in an app; in its
  /// tests, those a test left unfinished too).
  package static var unfinishedLaunches: Int { Int(lcc_unfinished_launches()) }

  /// Names the cause of the next fatal signal (the record's `cause`, the report's type).
  static func setCause(_ cause: String) { lcc_set_crash_cause(cause) }

  static let reportPrefix = "crash-"

  /// Held for each install and uninstall: the descriptor of the report directory the
  /// installed handler writes to (-1: none).
  private static let installation = Mutex<Int32>(-1)

  static func reportName(identity: ProcessIdentity) -> String {
    "\(reportPrefix)\(identity.pid)-\(identity.startTime).json"
  }
}
