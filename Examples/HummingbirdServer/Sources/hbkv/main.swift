import ChaosProbe
import Failpoints
import Foundation
import LaunchProtection
import LaunchProtectionLogging
import LaunchProtectionMetrics
import LaunchProtectionServiceLifecycle
import Logging
import Metrics
import Prometheus
import ServiceLifecycle

// hbkv: a Hummingbird 2 key-value server. Its launch loads the data file and warms up;
// LaunchProtection counts launches that die before the server is listening, and after two it
// repairs by quarantining the data file. SIGTERM is a graceful shutdown (exit 0) at any time.
//
//   HBKV_DATA_DIR=/var/lib/hbkv CHAOS_PORT=8080 hbkv
//   curl -X PUT --data hello 127.0.0.1:8080/kv/greeting && curl 127.0.0.1:8080/kv/greeting
//   curl 127.0.0.1:8080/ready && curl 127.0.0.1:8080/metrics      # probes and Prometheus
//
// HBKV_LAUNCH=before-group (default): the launch runs before the ServiceGroup does.
// HBKV_LAUNCH=before-server-starts: it runs inside the group, in Hummingbird's beforeServerStarts.
// HBKV_LAUNCH=while-serving: the server listens first and the launch runs beside it: /health
// answers, /ready is 503 with the mode (a repair shows as protect) and /kv/* is 503 until the
// launch finished — what a pod whose probes must answer during a long repair needs.
// HBKV_SERVICE=none: no LaunchProtectionService; the server starts with `app.runService()`,
// whose ServiceGroup owns SIGTERM and never tells the organizer (the organizer sees the stop
// through a Dispatch source of its own).

LoggingSystem.bootstrap(StreamLogHandler.standardError)
let metricsRegistry = PrometheusCollectorRegistry()
MetricsSystem.bootstrap(PrometheusMetricsFactory(registry: metricsRegistry))
let environment = ProcessInfo.processInfo.environment
let logger = Logger(label: "hbkv")

let dataDirectory = environment["HBKV_DATA_DIR"] ?? "/var/lib/hbkv"
let port = environment["CHAOS_PORT"].flatMap(Int.init) ?? 8080
let launchInsideGroup = environment["HBKV_LAUNCH"] == "before-server-starts"
let launchWhileServing = environment["HBKV_LAUNCH"] == "while-serving"
let withLaunchService = environment["HBKV_SERVICE"] != "none"
let store = KeyValueStore(dataDirectory: dataDirectory)
try? FileManager.default.createDirectory(atPath: dataDirectory, withIntermediateDirectories: true)

var configuration = LaunchOrganizer.Configuration(
  stateDirectory: ChaosProbe.stateDirectory(default: dataDirectory + "/launch"))
// Each phase (launch, repair, relaunch) must reach the next within 1.5 s, or it is a hang:
// SIGABRT, recorded as launch-hang with every thread's stack, and counted.
configuration.launchDeadline = .milliseconds(Int(environment["HBKV_LAUNCH_DEADLINE_MS"] ?? "") ?? 1500)
let organizer = LaunchOrganizer(configuration: configuration)
ChaosProbe.declare(["kv.load", "kv.warmup", "kv.bind"])
ChaosProbe.declare(["kv.repair"], phase: .repair)  // evaluated inside the repair (protocol 2 tells explore)
ChaosProbe.attach(organizer)
organizer.log(to: logger)
organizer.recordMetrics()

// Two consecutive launch crashes: quarantine the data file. If the relaunch still dies, exit 75
// before any repair or launch code (name it in the unit's RestartPreventExitStatus=).
let policy = ProtectionPolicy.threshold(2).whenExhausted(.exit(status: 75))

/// The launch: everything between the process start and "the server is listening".
@Sendable func launch() async throws {
  let outcome = try await organizer.launch(policy: policy) { context in
    logger.warning("repairing: quarantining the data file", metadata: ["count": "\(context.count)"])
    _ = FailpointRegistry.shared.evaluate("kv.repair")  // `hang`: a repair past the deadline
    try store.quarantineDataFile()
  }
  if case .repaired = outcome { logger.notice("relaunching after the repair") }
  try store.load()
  try await store.warmUp()
}

/// Failpoint `kv.bind`: `return(EADDRINUSE)` fails the server's start like a port in use.
@Sendable func checkBind() throws {
  if case .fail(let errno) = FailpointRegistry.shared.evaluate("kv.bind") {
    throw KeyValueStore.StoreError(description: "cannot bind 127.0.0.1:\(port): \(String(cString: strerror(errno)))")
  }
}

// Last in the group, so it is the first told about a graceful shutdown; the launch finishes
// once Hummingbird is listening.
let launchService = LaunchProtectionService(organizer: organizer)
@Sendable func markLaunchFinished() async {
  if withLaunchService { await launchService.markLaunchFinished() } else { await organizer.markLaunchingFinished() }
}
let app = Server.application(
  store: store, port: port, logger: logger, organizer: organizer, metrics: metricsRegistry,
  beforeServerStarts: launchInsideGroup ? [launch, checkBind] : [checkBind],
  onServerRunning: {
    guard launchWhileServing else { return await markLaunchFinished() }
    // Hummingbird handles connections only once this returns: the launch runs beside the server.
    Task {
      do {
        try await launch()
      } catch {
        logger.error("hbkv failed: \(error)")
        exit(1)
      }
      await markLaunchFinished()
    }
  })
let group = ServiceGroup(
  configuration: .init(
    services: [app, launchService], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))

do {
  if !launchInsideGroup && !launchWhileServing { try await launch() }
  if withLaunchService { try await group.run() } else { try await app.runService() }
  logger.info("stopped")
  exit(0)
} catch {
  logger.error("hbkv failed: \(error)")
  exit(1)
}
