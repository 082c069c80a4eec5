import ChaosProbe
import Failpoints
import LaunchProtection
import LaunchProtectionLogging
import LaunchProtectionServiceLifecycle
import LaunchTasks
import Logging
import ServiceLifecycle

// Every Swift snippet of the README and of LaunchProtection's articles, one function each, as
// written there (a `...` of the documentation is filled in). ChaosKit's snippets are in
// Tests/DocumentedCallsTests; Hummingbird's own calls are built by Examples/HummingbirdServer.

/// README, "Integration in ten lines".
public func readmeIntegration() {
  let organizer = LaunchOrganizer(stateDirectory: "/var/lib/mydaemon/launch")
  organizer.finishLaunching(
    shouldProtect: { count in count >= 2 },  // two launches in a row died before they finished
    launch: {
      startServer()  // your start-up
      organizer.launchingFinished()  // from here on, a crash is not a launch crash
    },
    protect: {
      clearCaches()  // your repair; then the launch runs, in this process
      organizer.protectFinished()
    })
}

/// Getting started, "A daemon".
public func gettingStartedDaemon() {
  let organizer = LaunchOrganizer(stateDirectory: "/var/lib/mydaemon/launch")
  organizer.addObserver { event in log.info("launch protection: \(event)") }

  organizer.finishLaunching(
    shouldProtect: { count in count > 1 },  // protect after two launch crashes
    launch: {
      openDatabase()
      startServer()
      // "Launch finished": the point after which a crash is no longer a launch crash.
      organizer.launchingFinished()
    },
    protect: {
      clearCaches()  // the repair
      resetConfiguration()
      organizer.protectFinished()  // runs `launch` now, in this process
    })

  organizer.addLifeAction(
    key: "didBecomeActive", action: { registerWithLoadBalancer() },
    protect: { log.warning("serving in degraded mode") })

  organizer.performAction(key: "didBecomeActive")
}

/// Getting started, escalating repairs.
public func gettingStartedEscalation(organizer: LaunchOrganizer) {
  organizer.finishLaunching(
    policy: .escalation([("clear-caches", 2), ("reset-config", 4), ("wipe-data", 6)]),
    launch: { startServer() },
    protect: { context in
      switch context.level.name {
      case "clear-caches": clearCaches()
      case "reset-config": resetConfiguration()
      default: wipeData()
      }
      organizer.protectFinished()
    })
}

/// Getting started, "A server".
public func gettingStartedServer() async throws {
  var configuration = LaunchOrganizer.Configuration(stateDirectory: "/var/lib/kv/launch")
  configuration.launchDeadline = .milliseconds(1500)
  let organizer = LaunchOrganizer(configuration: configuration)

  // Returns when the launch may go on: at once in normal mode, after the repair in protect mode.
  let outcome = try await organizer.launch(
    policy: ProtectionPolicy.escalation([("quarantine-data", 2), ("reset-config", 4)]).whenExhausted(
      .exit(status: 75)),
    repair: { context in try await quarantineDataFile(level: context.level) })
  let database = try await organizer.waitForDependency("postgres") {
    try await connectWithRetries()  // a database that is down is not a launch crash
  }
  try await loadDataFile(database)  // the launch (the relaunch after a repair)
  try await startServer()  // or: in Hummingbird's onServerRunning
  await organizer.markLaunchingFinished()  // READY=1 to systemd; the deadline is off
  _ = outcome
}

/// A dependency that is down is not a broken release, the overview and the closure form.
public func dependencyOutages(configuration: LaunchOrganizer.Configuration) async throws {
  let organizer = LaunchOrganizer(configuration: configuration)
  _ = try await organizer.launch(policy: .threshold(2)) { context in try await repair(context) }
  let client = try await organizer.waitForDependency("postgres") {
    try await connectWithRetries(to: databaseURL, giveUpAfter: .seconds(60))
  }
  try await migrate(client)  // a crash here still counts: it is our code
  await organizer.markLaunchingFinished()

  let db = try organizer.waitForDependency("postgres") { try connectToDatabase() }
  _ = db
}

/// Servers and signals, "In a ServiceGroup": the calls other than Hummingbird's.
public func serviceGroup(configuration: LaunchOrganizer.Configuration) async throws {
  let organizer = LaunchOrganizer(configuration: configuration)  // launchDeadline set
  ChaosProbe.declare(["kv.load", "kv.bind"])  // your failpoints
  ChaosProbe.attach(organizer)
  organizer.log(to: logger)

  @Sendable func launch() async throws {  // everything before "listening"
    _ = try await organizer.launch(policy: .threshold(2).whenExhausted(.exit(status: 75))) { _ in
      try store.quarantineDataFile()  // the repair
    }
    try store.load()  // evaluates "kv.load" itself
  }
  let launchService = LaunchProtectionService(organizer: organizer)
  await launchService.markLaunchFinished()  // what Hummingbird's onServerRunning calls
  try await launch()
  let group = ServiceGroup(
    configuration: .init(
      services: [launchService],  // the launch service last
      gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
  try await group.run()
  _ = FailpointRegistry.shared.evaluate("kv.load")
  await organizer.markStopRequested()
  organizer.stopRequested()
  _ = organizer.decision
}

/// Running under systemd.
public func systemd() {
  var configuration = LaunchOrganizer.Configuration(stateDirectory: "/var/lib/mydaemon/launch")
  configuration.launchDeadline = .seconds(20)  // < TimeoutStartSec
  let organizer = LaunchOrganizer(configuration: configuration)
  organizer.finishLaunching(
    shouldProtect: { $0 >= 2 },
    launch: {
      startEverything()  // a deadlock here is ended after 20 s and counted
      organizer.launchingFinished()  // sends READY=1 to systemd
    },
    protect: {
      repair()  // gets its own 20 s; systemd is told (EXTEND_TIMEOUT_USEC)
      organizer.protectFinished()  // the relaunch gets its own 20 s too
    })
  while running {
    organizer.keepAlive()
    serve(for: .seconds(5))
  }  // WATCHDOG=1 when WatchdogSec is set
  SystemdNotify.send("STATUS=serving")
  _ = SystemdNotify.watchdogInterval
}

/// Crash capture.
public func crashCapture() throws {
  var options = CrashCapture.Options()
  options.eventsFileDescriptor = logFD  // optional: one NDJSON `crash` line
  options.reportDirectory = "/var/lib/mydaemon/launch"  // the next launch learns why this one died
  try CrashCapture.install(options)
  CrashCapture.prepareCurrentThread()  // every thread you create (alternate signal stack)
  CrashCapture.prepareAllThreads()
}

/// Testing your own app, "Attach the probe" (kvd's lines).
public func attachTheProbe() {
  let organizer = LaunchOrganizer(stateDirectory: ChaosProbe.stateDirectory(default: "/var/lib/mydaemon/launch"))
  ChaosProbe.declare(["journal.fsync"])  // optional: failpoints your own code evaluates
  ChaosProbe.attach(workflow)  // optional: a LaunchTasks Workflow → task events, task.<name> failpoints
  ChaosProbe.attach(organizer)  // last, before finishLaunching
  organizer.finishLaunching(shouldProtect: { $0 >= 2 }, launch: {}, protect: {})
  ChaosProbe.declare(["kv.repair"], phase: .repair)
  ChaosProbe.emit("ready", ["port": 8080])
  _ = ChaosProbe.isActive
}

/// "Servers and signals" and "Testing your own app" (issue 42): a failpoint evaluated for its
/// crash alone, with no `_ =` (no unused-result warning: `evaluate` is `@discardableResult`), one
/// that guards I/O, and crash capture installed for production with the organizer's directory.
public func ownFailpointsAndProductionCrashCapture(configuration: LaunchOrganizer.Configuration) -> Int32? {
  var crashOptions = CrashCapture.Options()
  crashOptions.reportDirectory = configuration.stateDirectory
  try? CrashCapture.install(crashOptions)
  FailpointRegistry.shared.evaluate("journal.replay")  // crashes, hangs and exits need no result
  if case .fail(let errno) = FailpointRegistry.shared.evaluate("journal.fsync") { return errno }
  return nil
}
