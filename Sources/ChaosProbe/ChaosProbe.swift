import Failpoints
import LaunchProtection
import LaunchTasks
import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// The in-app half of the chaos protocol (`Docs/Protocol.md`): a few lines turn an app that
/// uses LaunchProtection (and optionally LaunchTasks) into a target `chaos run` can drive.
///
/// ```swift
/// let organizer = LaunchOrganizer(stateDirectory: ChaosProbe.stateDirectory(default: "/var/lib/app"))
/// ChaosProbe.declare(["journal.replay"])      // the app's own failpoints, if any
/// ChaosProbe.attach(workflow)                  // optional: task events, task.<name> failpoints
/// ChaosProbe.attach(organizer)                 // last, before finishLaunching
/// organizer.finishLaunching(...)
/// ```
///
/// Under the harness (`CHAOS_EVENTS` set) `attach(_:LaunchOrganizer)` opens the events file,
/// configures `CHAOS_FAILPOINTS`/`CHAOS_SEED`, installs crash capture and reports every
/// transition. Otherwise every call here does nothing: no file, no signal handler.
///
/// Only a chaos build reads the environment: LaunchChaos's package trait `Chaos` turns the
/// probe on (`.package(…, traits: ["Chaos"])`, or a trait of your own that enables it, built
/// with `swift build --traits Chaos`). Without it — a production build — no `CHAOS_*`
/// variable is read, so none can crash, redirect or stop your app (the Security article).
public enum ChaosProbe {
  /// The protocol version this probe speaks (`protocol` in the `launch` event and the listing).
  public static let protocolVersion = 2

  /// What `attach(_:options:)` sets up under the harness.
  public struct Options: Sendable {
    /// Install crash capture (default true). Turn off only to let another handler see crashes.
    public var crashCapture = true
    /// Crash capture settings; the events file and the report directory are filled in.
    /// Under the harness the default does not chain to the previous handler: the Swift
    /// runtime's backtracer would slow every crash down (and wait for a key on a TTY).
    public var crashCaptureOptions: CrashCapture.Options

    /// Protocol v2: whether the app's repair leads to the relaunch (it calls
    /// `protectFinished()`, or uses the async `launch`). `chaos explore` predicts from it.
    public var relaunchesAfterRepair = true
    /// Protocol v2: whether the app reads `CHAOS_APP` to shape its protection (only the
    /// reference app does); `chaos explore` generates configurations only for such targets.
    public var acceptsAppConfiguration = false

    /// Default options.
    public init() {
      crashCaptureOptions = CrashCapture.Options()
      crashCaptureOptions.chainToPreviousHandler = false
    }
  }

  /// Whether this process runs under the harness (`CHAOS_EVENTS` is set, in a chaos build).
  /// Read once.
  public static var isActive: Bool { request.events != nil }

  /// Whether this build honours the harness's `CHAOS_*` environment at all: true only when
  /// LaunchChaos was built with its package trait `Chaos` (or `Harness`). A production build
  /// (no trait) ignores every `CHAOS_*` variable: the probe is compiled inert.
  public static var isCompiledIn: Bool {
    #if LAUNCHCHAOS_PROBE
      true
    #else
      false
    #endif
  }

  /// The protection state directory: `CHAOS_STATE_DIR` under the harness (which checks the
  /// state there), `fallback` otherwise.
  public static func stateDirectory(default fallback: String) -> String {
    guard request.isActive, let directory = environment("CHAOS_STATE_DIR"), !directory.isEmpty
    else { return fallback }
    return directory
  }

  /// Declares failpoint names the app evaluates itself (a trailing `*` declares a prefix).
  /// `CHAOS_FAILPOINTS` naming anything undeclared is refused at `attach`. Safe from any thread.
  public static func declare(_ failpoints: [String]) {
    declare(failpoints, phase: .launch)
  }

  /// Where the app evaluates a failpoint it declares (protocol 2: a harness that judges the
  /// target, `chaos explore`, predicts what a fault there does from it).
  public enum FailpointPhase: String, Sendable {
    /// During the launch (or the relaunch after a repair): a fault there is a launch crash.
    case launch
    /// Inside the repair of protect mode: a fault there escalates.
    case repair
    /// After `launchingFinished()`: a fault there is never counted.
    case afterLaunch = "after_launch"
  }

  /// Declares failpoint names the app evaluates itself in `phase`.
  public static func declare(_ failpoints: [String], phase: FailpointPhase) {
    guard request.isActive else { return }
    state.withLock { state in
      state.declared += failpoints
      if phase != .launch { for name in failpoints { state.phases[name] = phase.rawValue } }
    }
  }

  /// Reports the workflow's task events (`task_start` with the `thread` and the tasks it waited
  /// for as `after`, `task_end`, `task_failed`, `lifecycle`),
  /// gives its worker threads an alternate signal stack and declares `task.<name>` for every
  /// task added so far. Call it before `attach(_:LaunchOrganizer)` so those names are declared
  /// when `CHAOS_FAILPOINTS` is checked (or `declare` them yourself).
  public static func attach(_ workflow: Workflow) {
    guard request.isActive else { return }
    declare(workflow.taskNames.map { "task." + $0 })
    workflow.addObserver { [weak workflow] event in
      switch event {
      case .taskStarted(let name, let thread):
        // `after`: what it waited for, so that `chaos run --trace` draws the dependencies.
        emit("task_start", ["task": name, "thread": thread, "after": workflow?.dependencies(of: name) ?? []])
      case .taskFinished(let name): emit("task_end", ["task": name])
      case .taskFailed(let name, let reason): emit("task_failed", ["task": name, "reason": reason])
      case .lifecycle(let event, let task): emit("lifecycle", ["event": event, "task": task])
      }
    }
    workflow.addThreadPreparer { CrashCapture.prepareCurrentThread() }
  }

  /// Makes the app a chaos target. Call it after `declare` and `attach(workflow)`, before
  /// `finishLaunching`. Not under the harness it returns at once.
  ///
  /// Safe from any thread, also at once. A second call (another organizer: an app's parallel
  /// tests) shares the first one's events file and failpoint configuration, and adds its
  /// organizer's events.
  ///
  /// With `CHAOS_LIST_FAILPOINTS=1` it prints the declared failpoints as JSON and exits 0.
  /// An unreadable `CHAOS_EVENTS`, a malformed `CHAOS_FAILPOINTS` or `CHAOS_SEED`, or an
  /// undeclared failpoint name prints one line on stderr and exits 2.
  public static func attach(_ organizer: LaunchOrganizer, options: Options = Options()) {
    guard request.isActive else { return }
    let registry = organizer.configuration.failpoints
    let declared = state.withLock { state in
      // Once, however many organizers are attached (an app's parallel tests make several).
      let missing = LaunchOrganizer.Configuration.failpointNames.filter { !state.declared.contains($0) }
      state.declared = missing + state.declared
      return state.declared
    }
    if request.listFailpoints {
      FailpointListing.print(
        declared, phases: state.withLock { $0.phases }, acceptsApp: options.acceptsAppConfiguration)
    }
    guard let path = request.events else { return }
    // A second attach shares the first one's events file, and configures a registry once: a
    // second configuration would reset the counts of `2*segv`-like failpoints mid-run.
    let (opened, configure) = state.withLock { state -> (EventLog?, Bool) in
      if state.log == nil { state.log = EventLog(path: path) }
      let identity = ObjectIdentifier(registry)
      let first = !state.configured.contains(identity)
      if first && state.log != nil { state.configured.append(identity) }
      return (state.log, first)
    }
    guard let log = opened else {
      fail("cannot open CHAOS_EVENTS '\(path)': \(String(cString: strerror(errno)))")
    }
    if configure { configureFailpoints(registry, declared: declared) }
    registry.setObserver { trigger in
      log.emitFailpoint(name: trigger.name, action: trigger.action.spec, t: trigger.monotonicNanoseconds)
    }
    if options.crashCapture {
      var capture = options.crashCaptureOptions
      capture.eventsFileDescriptor = log.fd
      capture.reportDirectory = organizer.configuration.stateDirectory
      capture.reportReaderGroup = organizer.configuration.readableByGroup
      do {
        try CrashCapture.install(capture)
        registry.setThreadPreparer { CrashCapture.prepareCurrentThread() }
      } catch {
        log.emit("crash_capture_unavailable", ["detail": error.description])
      }
    }
    let declaration = PolicyDeclaration(organizer: organizer.configuration, options: options)
    organizer.observe { observation in
      if let event = observation.event { EventTranslation.emit(event, to: log, declaring: declaration) }
      if let report = observation.stopSignal { EventTranslation.emit(report, to: log) }
      if let wait = observation.dependencyWait { EventTranslation.emit(wait, to: log) }
    }
  }

  /// Writes an app-defined event (`{"event": name, "pid", "t", fields…}`) to the events file;
  /// nothing when not under the harness. Field values must be JSON-serialisable. Safe from any
  /// thread: each event is one `write(2)` of one line.
  public static func emit(_ event: String, _ fields: [String: any Sendable] = [:]) {
    guard let log = state.withLock({ $0.log }) else { return }
    log.emit(event, fields)
  }

  // MARK: - Internals

  struct Request: Sendable {
    var events: String?
    var listFailpoints: Bool
    var isActive: Bool { events != nil || listFailpoints }
  }

  struct State: Sendable {
    var declared: [String] = []
    /// Declared names evaluated outside the launch phase.
    var phases: [String: String] = [:]
    var log: EventLog?
    /// The failpoint registries configured from `CHAOS_FAILPOINTS` (each once).
    var configured: [ObjectIdentifier] = []
  }

  /// The environment, read once: `CHAOS_EVENTS` first, `CHAOS_LIST_FAILPOINTS` only when set.
  /// Never read in a build without the package trait `Chaos`: there no variable arms anything.
  static let request: Request = {
    #if LAUNCHCHAOS_PROBE
      let events = getenv("CHAOS_EVENTS").map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 }
      let list = getenv("CHAOS_LIST_FAILPOINTS").map { String(cString: $0) }
      return Request(events: events, listFailpoints: list.map { !$0.isEmpty && $0 != "0" } ?? false)
    #else
      return Request(events: nil, listFailpoints: false)
    #endif
  }()

  static let state = Mutex(State())

  private static func configureFailpoints(_ registry: FailpointRegistry, declared: [String]) {
    if let seed = environment("CHAOS_SEED"), !seed.isEmpty {
      guard let value = UInt64(seed) else { fail("invalid CHAOS_SEED '\(seed)': expected an unsigned integer") }
      registry.seed(value)
    }
    let spec = environment("CHAOS_FAILPOINTS") ?? ""
    registry.declare(declared)
    do {
      try registry.configure(spec)
    } catch {
      fail("invalid CHAOS_FAILPOINTS '\(spec)': \(FailpointListing.oneLine(error, declared: declared))")
    }
  }

  /// One line on stderr, then exit 2: a target must not run a launch the scenario did not ask for.
  static func fail(_ message: String) -> Never {
    let program = (CommandLine.arguments.first ?? "target").split(separator: "/").last.map(String.init) ?? "target"
    let line = Array("\(program): \(message)\n".utf8)
    _ = line.withUnsafeBytes { write(STDERR_FILENO, $0.baseAddress, $0.count) }
    exit(2)
  }

  /// The environment variable `name`, or nil when unset.
  private static func environment(_ name: String) -> String? { getenv(name).map { String(cString: $0) } }
}
