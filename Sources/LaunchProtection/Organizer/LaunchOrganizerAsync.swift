#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// What `launch(policy:repair:)` returns: the code after the `await` is the launch.
public enum LaunchOutcome: Sendable, Equatable {
  /// Normal mode: go on with the launch.
  case normal
  /// Protect mode: the repair ran and returned; the launch now runs as the relaunch (a crash
  /// in it still counts and escalates).
  case repaired(ProtectLevel)
}

/// What the async API throws when the launch cannot go on. A struct, not an enum, so that a
/// later version can add a case without breaking a caller's `catch` or `switch`: compare
/// ``code-swift.property`` (`catch let error as LaunchOrganizerError where error.code == .degraded`).
public struct LaunchOrganizerError: Error, Sendable, Equatable, CustomStringConvertible {
  /// What went wrong. New codes may be added in any release.
  public struct Code: Hashable, Sendable, CustomStringConvertible {
    /// The machine-readable name (`already_started`, `degraded`).
    public let name: String

    /// Every code of this version, for the library's own `switch`es: the only initializer takes
    /// one, so a new code fails to compile until each `switch` over ``known`` handles it.
    @usableFromInline package enum Known: String, CaseIterable, Sendable {
      case alreadyStarted = "already_started"
      case degraded
    }

    @usableFromInline init(_ known: Known) { self.name = known.rawValue }

    /// This code as the enum the library switches over; every code is one (see ``Known``).
    package var known: Known { Known(rawValue: name)! }

    /// `launch` or `finishLaunching` was called before on this organizer.
    @_alwaysEmitIntoClient
    public static var alreadyStarted: Code { Code(.alreadyStarted) }
    /// Every level was attempted and the policy says to stay degraded: the repair ran and the
    /// launch must not; serve degraded or wait for a stop (``LaunchOrganizerError/level``).
    @_alwaysEmitIntoClient
    public static var degraded: Code { Code(.degraded) }

    /// The name.
    public var description: String { name }
  }

  /// What went wrong.
  public let code: Code
  /// The last level attempted, for ``Code-swift.struct/degraded``.
  public let level: ProtectLevel?

  @usableFromInline init(_ code: Code, level: ProtectLevel? = nil) {
    self.code = code
    self.level = level
  }

  /// `launch` or `finishLaunching` was called before on this organizer.
  @_alwaysEmitIntoClient
  public static var alreadyStarted: LaunchOrganizerError { LaunchOrganizerError(.alreadyStarted) }

  /// Every level was attempted and the policy says to stay degraded: the repair ran and the
  /// launch must not; serve degraded or wait for a stop.
  public static func degraded(_ level: ProtectLevel) -> LaunchOrganizerError {
    LaunchOrganizerError(.degraded, level: level)
  }

  public var description: String {
    switch code.known {
    case .alreadyStarted:
      return "the launch was already started on this organizer"
    case .degraded:
      let last = level.map { " (last: \($0.number) \($0.name))" } ?? ""
      return "every repair level failed\(last); staying degraded, the launch is held"
    }
  }
}

/// The async face of the same state machine: for servers whose start-up is async code on the
/// cooperative pool. The durable state updates run on a thread of the library's, in order,
/// never on a cooperative-pool thread; the deadline runs on its own thread.
///
/// Every `async` function of the library is `@_alwaysEmitIntoClient` and calls the sync steps
/// below: its code is compiled into the app that calls it, so the library's own object code
/// never references Swift concurrency. A static binary that uses only the closure API then
/// links neither the concurrency runtime nor its symbols (`chaos bench --only whole-process`;
/// ChaosKit's Benchmarks article); one that awaits the library has the runtime anyway.
extension LaunchOrganizer {
  private static let storeWorker = SerialWorker(name: "launch-store")
  /// Stop requests have their own worker: a stop must be recorded even while a launch step
  /// queued before it hangs (found by `chaos explore`: SIGTERM during a hung
  /// `launchingFinished` waited behind it, and the hang was then counted).
  private static let stopWorker = SerialWorker(name: "launch-stop")

  /// Runs `body` on the store worker's thread (or the stop worker's) and returns at once.
  @usableFromInline
  static func enqueue(onStopWorker: Bool, _ body: @escaping @Sendable () -> Void) {
    (onStopWorker ? stopWorker : storeWorker).enqueue(body)
  }

  /// Runs `body` on the store worker (or the stop worker) and waits for it without blocking a
  /// pool thread.
  @usableFromInline @_alwaysEmitIntoClient
  func offPool<T: Sendable>(onStopWorker: Bool = false, _ body: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
      Self.enqueue(onStopWorker: onStopWorker) { continuation.resume(returning: body()) }
    }
  }

  /// `begin` as the async API calls it: no held launch.
  @usableFromInline
  func beginAsync(policy: ProtectionPolicy) -> Start { begin(policy: policy, heldLaunch: nil) }

  /// The launch runs on the caller's task: the deadline is armed without a thread to dump.
  @usableFromInline
  func enterLaunchAsync() { enterLaunch(thread: nil) }

  /// The repair runs on the caller's task.
  @usableFromInline
  func enterRepairAsync(_ context: ProtectContext) { enterRepair(context, thread: nil) }

  /// The repair returned: true when the launch runs now as the relaunch, false when the levels
  /// are exhausted and the policy stays degraded.
  @usableFromInline
  func leaveRepairAsync() -> Bool { leaveRepair(thread: nil) != nil }

  /// Starts the launch: counts, persists the sentinel, and in protect mode awaits `repair`.
  /// Returns `.normal` (go on with the launch) or `.repaired(level)` once the repair returned
  /// (the launch then runs as the relaunch). Call `await markLaunchingFinished()` when the
  /// launch is done. A repair that throws leaves the launch unfinished: the error is rethrown and,
  /// should the process then exit or die, the next launch counts it and escalates. Safe from
  /// any task, also at once: one call begins the launch, a second throws `alreadyStarted`.
  ///
  /// - Throws: `LaunchOrganizerError.alreadyStarted`; `.degraded` when the levels are
  ///   exhausted and the policy stays degraded (after the repair ran); the repair's error.
  @_alwaysEmitIntoClient
  public func launch(
    policy: ProtectionPolicy, repair: @Sendable (ProtectContext) async throws -> Void
  ) async throws -> LaunchOutcome {
    let start = await offPool { [self] in beginAsync(policy: policy) }
    switch start {
    case .alreadyStarted:
      throw LaunchOrganizerError.alreadyStarted
    case .normal:
      enterLaunchAsync()
      return .normal
    case .protect(let context):
      enterRepairAsync(context)
      try await repair(context)
      let relaunched = await offPool { [self] in leaveRepairAsync() }
      guard relaunched else { throw LaunchOrganizerError.degraded(context.level) }
      return .repaired(context.level)
    }
  }

  // The async forms have names of their own. An async overload named like its sync twin is
  // preferred by the compiler in every async context, @_disfavoredOverload or not, so code that
  // calls `organizer.launchingFinished()` in an async function (as before the async API
  // existed) would stop compiling ("expression is 'async' but is not marked with 'await'").

  /// The launch succeeded: `launchingFinished()` with its durable write off the cooperative
  /// pool (on the library's store worker). Safe from any task; a second call does nothing.
  @_alwaysEmitIntoClient
  public func markLaunchingFinished() async {
    await offPool { [self] in launchingFinished() }
  }

  /// `stopRequested()` with its durable write on the library's stop worker, off the cooperative
  /// pool (ServiceLifecycle's graceful shutdown).
  @_alwaysEmitIntoClient
  package func recordStopOffPool() async {
    await offPool(onStopWorker: true) { [self] in stopRequested() }
  }
}

extension LaunchOrganizerError {
  /// Matches an error by its code: `if case .degraded = error`.
  public static func ~= (code: Code, error: LaunchOrganizerError) -> Bool {
    error.code == code
  }

  /// Matches any error against one of these: `catch LaunchOrganizerError.alreadyStarted`.
  public static func ~= (expected: LaunchOrganizerError, error: any Error) -> Bool {
    (error as? LaunchOrganizerError) == expected
  }
}
