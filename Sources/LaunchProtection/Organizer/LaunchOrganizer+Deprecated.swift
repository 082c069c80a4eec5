/// The names 0.1 had, kept compiling (0.2.0's one vocabulary: CHANGELOG's migration table).
/// Each forwards to the name that replaces it.
extension LaunchOrganizer {
  /// The failpoints the organizer evaluates.
  @available(*, deprecated, renamed: "Configuration.failpointNames")
  public static var failpointNames: [String] { Configuration.failpointNames }

  /// The state store.
  @available(*, deprecated, message: "a tool's hook: read the file with StateStore(directory:) instead")
  public var store: StateStore { stateStore }

  /// The current mode.
  @available(*, deprecated, message: "use status.launchMode (and status.protectLevel)")
  public var mode: LaunchMode { currentMode }

  /// Why this launch's count is what it is; nil before the launch starts.
  @available(*, deprecated, renamed: "status.decision")
  public var decision: LaunchDecision? { inner.withLock { $0.decision } }

  /// Adds an observer of every transition.
  @available(*, deprecated, message: "use observe(_:) and its observation's event")
  public func addObserver(_ observer: @escaping @Sendable (LaunchProtectionEvent) -> Void) {
    observe { observation in if let event = observation.event { observer(event) } }
  }

  /// Adds an observer of SIGTERM's owners during the launch.
  @available(*, deprecated, message: "use observe(_:) and its observation's stopSignal")
  public func addStopSignalObserver(_ observer: @escaping @Sendable (StopSignalReport) -> Void) {
    observe { observation in if let report = observation.stopSignal { observer(report) } }
  }

  /// Adds an observer of the launch's waits for dependencies.
  @available(*, deprecated, message: "use observe(_:) and its observation's dependencyWait")
  public func addDependencyObserver(_ observer: @escaping @Sendable (DependencyWait) -> Void) {
    observe { observation in if let wait = observation.dependencyWait { observer(wait) } }
  }

  /// The closure form with a count predicate.
  @available(*, deprecated, message: "use finishLaunching(policy: .custom(shouldProtect), launch:protect:)")
  public func finishLaunching(
    shouldProtect: @escaping @Sendable (Int) -> Bool,
    launch: @escaping @Sendable () -> Void,
    protect: @escaping @Sendable () -> Void
  ) {
    finishLaunching(policy: .custom(shouldProtect), launch: launch, protect: { _ in protect() })
  }

  /// The async form with a count predicate.
  @available(*, deprecated, message: "use launch(policy: .custom(shouldProtect), repair:)")
  @_alwaysEmitIntoClient
  public func launch(
    shouldProtect: @escaping @Sendable (Int) -> Bool, repair: @Sendable (ProtectContext) async throws -> Void
  ) async throws -> LaunchOutcome {
    try await launch(policy: .custom(shouldProtect), repair: repair)
  }

  /// Tells systemd's watchdog this process is alive.
  @available(*, deprecated, renamed: "SystemdNotify.keepAlive()")
  @discardableResult
  public func keepAlive() -> Bool { SystemdNotify.keepAlive() }

  /// A stop was requested, from async code.
  @available(*, deprecated, message: "call stopRequested(), which records the stop on the calling thread")
  @_alwaysEmitIntoClient
  public func markStopRequested() async {
    await recordStopOffPool()
  }
}
