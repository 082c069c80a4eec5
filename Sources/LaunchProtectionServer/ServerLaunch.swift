import ChaosProbe
import LaunchProtection
import LaunchProtectionLogging
import LaunchProtectionServiceLifecycle
import Logging
import ServiceLifecycle

/// A server's launch protection in one `Service`: the organizer, crash capture, the chaos probe
/// and swift-log events, which a server otherwise wires by hand (`LaunchProtectionService`,
/// `ChaosProbe.attach`, `organizer.log(to:)`, `CrashCapture.install`).
///
/// Begin the launch before the server starts (or in Hummingbird's `beforeServerStarts`), mark it
/// finished once the server listens, and run it as a service of the app:
///
/// ```swift
/// import Hummingbird
/// import LaunchProtectionServer
/// let protection = ServerLaunch(stateDirectory: "/var/lib/todos/launch", launchDeadline: .seconds(30))
/// try await protection.launch { _ in try clearCaches() }  // counts the launch; after 2 crashes in a row, repairs
/// let router = try await buildRouter()  // your start-up: a crash here is a launch crash
/// var app = Application(
///   router: router, configuration: .init(address: .hostname(port: port)),
///   onServerRunning: { _ in await protection.markLaunchingFinished() })  // listening: the launch succeeded
/// app.addServices(protection)  // a SIGTERM during the launch is a stop, not a crash
/// try await app.runService()
/// ```
///
/// With an explicit `ServiceGroup`, put it **last** (the group stops its services in reverse
/// order, so it hears a graceful shutdown first):
///
/// ```swift
/// let group = ServiceGroup(configuration: .init(
///   services: [app, protection], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
/// try await group.run()
/// ```
///
/// What `init` sets up, in this order:
/// - a `LaunchOrganizer` on `stateDirectory` (under `chaos`, `CHAOS_STATE_DIR` instead:
///   `ChaosProbe.stateDirectory(default:)`);
/// - `ChaosProbe.attach(organizer)`: under `chaos` (`CHAOS_EVENTS` set) the events file, the
///   failpoints and crash capture; otherwise nothing at all. Declare your own failpoints with
///   `ChaosProbe.declare` **before** creating the `ServerLaunch`;
/// - `organizer.declareShutdownPath()`: its `run()` records a graceful shutdown as a stop, so a
///   signal source made during the launch (ServiceLifecycle's) is logged at `debug`, not `notice`.
///   Run it as a service, or record stops yourself (the Vapor variant of the server article);
/// - `organizer.log(to: logger)`: every launch event through swift-log;
/// - crash capture (`CrashCapture.install`, reports in the state directory, chaining to the
///   handler before it), unless `ChaosProbe` installed it or `crashCapture` is false: the next
///   launch then names the previous launch's crash (`LaunchDecision.previousCrash`, the log).
///
/// Safe to make from many tasks at once (an app's parallel tests each build the application):
/// the first one installs crash capture and the others share it, and each runs a launch of its
/// own; give each test its own state directory (LaunchProtection's "Threads, tasks and
/// processes" says what is shared).
///
/// As a `Service` it is `LaunchProtectionService`: a graceful shutdown during the launch is
/// recorded as a stop request (that launch is not counted), and ``markLaunchingFinished()`` also gives
/// every thread an alternate signal stack. A SIGTERM before the service runs (a launch begun
/// before `runService()`) is recorded by the organizer itself. Added with `addServices`, the
/// service runs in Hummingbird's inner group and hears the shutdown after the server drained;
/// during a launch in `beforeServerStarts` the organizer's own SIGTERM watcher records the stop.
public final class ServerLaunch: Service, CustomStringConvertible {
  /// The organizer that runs this process's launch: its `status` for a readiness probe,
  /// `recordMetrics()` (LaunchProtectionMetrics), `observe` for your own events.
  public let organizer: LaunchOrganizer
  /// The policy ``launch(repair:)`` runs the launch with.
  public let policy: ProtectionPolicy
  private let service: LaunchProtectionService

  /// A server launch on `stateDirectory` (the count and crash reports live there; keep it on
  /// persistent storage, one per app).
  ///
  /// ```swift
  /// let protection = ServerLaunch(stateDirectory: "/var/lib/todos/launch", launchDeadline: .seconds(30), logger: logger)
  /// ```
  ///
  /// - Parameters:
  ///   - stateDirectory: the organizer's state directory (`CHAOS_STATE_DIR` under `chaos`).
  ///   - launchDeadline: each phase (launch, repair, relaunch) must reach the next within it,
  ///     or the process is aborted with every thread's stack and the launch counted; nil (the
  ///     default): a hung launch is never counted.
  ///   - policy: when protect mode runs the repair; by default after two launch crashes in a row.
  ///   - logger: where launch events go (`organizer.log(to:)`).
  ///   - crashCapture: install crash capture (default true). False leaves crashes to the
  ///     handlers already there (and, under `chaos`, to none of ours).
  public convenience init(
    stateDirectory: String, launchDeadline: Duration? = nil, policy: ProtectionPolicy = .threshold(2),
    logger: Logger = Logger(label: "LaunchProtection"), crashCapture: Bool = true
  ) {
    var configuration = LaunchOrganizer.Configuration(stateDirectory: stateDirectory)
    configuration.launchDeadline = launchDeadline
    self.init(configuration: configuration, policy: policy, logger: logger, crashCapture: crashCapture)
  }

  /// A server launch with every organizer setting of `configuration` (its state directory
  /// replaced by `CHAOS_STATE_DIR` under `chaos`).
  ///
  /// ```swift
  /// var configuration = LaunchOrganizer.Configuration(stateDirectory: "/var/lib/todos/launch")
  /// configuration.readyWhenDegraded = true
  /// let protection = ServerLaunch(configuration: configuration, policy: .threshold(3))
  /// ```
  ///
  /// - Parameters:
  ///   - configuration: the organizer's configuration.
  ///   - policy: when protect mode runs the repair; by default after two launch crashes in a row.
  ///   - logger: where launch events go (`organizer.log(to:)`).
  ///   - crashCapture: install crash capture (default true).
  public init(
    configuration: LaunchOrganizer.Configuration, policy: ProtectionPolicy = .threshold(2),
    logger: Logger = Logger(label: "LaunchProtection"), crashCapture: Bool = true
  ) {
    var configuration = configuration
    configuration.stateDirectory = ChaosProbe.stateDirectory(default: configuration.stateDirectory)
    let organizer = LaunchOrganizer(configuration: configuration)
    var probe = ChaosProbe.Options()
    probe.crashCapture = crashCapture
    ChaosProbe.attach(organizer, options: probe)
    // As a `Service` it records a graceful shutdown as a stop (`run()`): a SIGTERM that
    // ServiceLifecycle's signal source takes during the launch is no stop lost, so the
    // organizer does not warn about that source.
    organizer.declareShutdownPath()
    organizer.log(to: logger)
    if crashCapture {
      var options = CrashCapture.Options()
      options.reportDirectory = organizer.configuration.stateDirectory
      options.reportReaderGroup = organizer.configuration.readableByGroup
      do {
        // Several made at once (an app's parallel tests) share the first one's handler.
        try CrashCapture.installUnlessInstalled(options)
      } catch {
        logger.warning(
          "crash capture not installed: \(error)", metadata: ["launch.event": "crash_capture_unavailable"],
          source: "LaunchProtection")
      }
    }
    self.organizer = organizer
    self.policy = policy
    self.service = LaunchProtectionService(organizer: organizer)
  }

  /// The launch's state now (mode, count, level, whether it finished), for a readiness probe:
  /// `organizer.status`.
  public var status: LaunchStatus { organizer.status }

  /// The directory the state files are kept in (`organizer.stateDirectoryInUse`): in a
  /// directory other users can write, its private subdirectory. Known once the launch began.
  public var stateDirectoryInUse: String { organizer.stateDirectoryInUse }

  /// Begins the launch: counts it and, in protect mode, awaits `repair`; then returns, and the
  /// code after the `await` is the launch (the relaunch after a repair). Call it once, before
  /// the server starts or in Hummingbird's `beforeServerStarts`. A second call throws
  /// `alreadyStarted`.
  ///
  /// ```swift
  /// try await protection.launch { context in
  ///   logger.warning("repairing", metadata: ["count": "\(context.count)"])
  ///   try clearCaches()
  /// }
  /// ```
  ///
  /// - Parameter repair: protect mode's repair; a repair that throws leaves the launch
  ///   unfinished (the next launch counts it and escalates).
  /// - Returns: `.normal`, or `.repaired(level)` once the repair returned.
  /// - Throws: what `LaunchOrganizer.launch(policy:repair:)` throws: `alreadyStarted`,
  ///   `degraded` when every level failed and the policy stays degraded, the repair's error.
  @discardableResult
  public func launch(repair: @Sendable (ProtectContext) async throws -> Void) async throws -> LaunchOutcome {
    try await organizer.launch(policy: policy, repair: repair)
  }

  /// Marks the part of the launch that waits for a dependency (a database, a configuration
  /// service): while `body` runs the launch deadline is paused, and a launch that dies, exits or
  /// is stopped in it is a dependency outage, never counted or repaired; the status says
  /// "waiting for `name`". Keep only the wait inside: a crash after it (a migration) counts.
  /// Safe from any task; each wait is recorded.
  /// `organizer.waitForDependency(_:_:)`; the LaunchProtection guide "A dependency that is down
  /// is not a broken release" says more.
  ///
  /// ```swift
  /// try await protection.launch { _ in try clearCaches() }
  /// let client = try await protection.waitForDependency("postgres") { try await connectWithRetries() }
  /// try await migrate(client)  // our code again: a crash here is a launch crash
  /// ```
  ///
  /// - Parameters:
  ///   - name: the dependency, as status, events and metrics name it (`postgres`).
  ///   - isolation: the caller's isolation, where `body` runs.
  ///   - body: the wait; it returns once the dependency answered, or throws.
  /// - Returns: what `body` returned.
  /// - Throws: what `body` threw, with its type.
  @discardableResult
  public func waitForDependency<T, Failure: Error>(
    _ name: String, isolation: isolated (any Actor)? = #isolation, _ body: () async throws(Failure) -> T
  ) async throws(Failure) -> T {
    try await organizer.waitForDependency(name, isolation: isolation, body)
  }

  /// The launch succeeded (the server listens): from here on a crash is not a launch crash.
  /// Call it from Hummingbird's `onServerRunning`. It tells systemd READY=1, ends the launch
  /// deadline and gives every thread an alternate signal stack when crash capture is
  /// installed. Safe to call more than once, and without running the service.
  ///
  /// ```swift
  /// var app = Application(router: router, onServerRunning: { _ in await protection.markLaunchingFinished() })
  /// ```
  public func markLaunchingFinished() async {
    await service.markLaunchingFinished()
  }

  /// Runs until graceful shutdown, then records the stop request (a no-op once the launch
  /// finished). Cancelled without a graceful shutdown, it returns without recording anything.
  /// The `ServiceGroup` calls it; add the launch with `app.addServices(protection)` or list it last.
  /// Run it once per value.
  public func run() async throws {
    try await service.run()
  }

  /// The service's name in ServiceGroup logs.
  public var description: String { "ServerLaunch" }
}
