import Foundation
import LaunchProtectionMetrics
import LaunchProtectionServer
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
// HBKV_DEPENDENCY_PORT: the launch first waits for a backend on 127.0.0.1:port (a TCP connect
// every 50 ms, for at most HBKV_DEPENDENCY_GIVE_UP_MS, default 3000, then exit 1), inside
// waitForDependency("backend"; HBKV_DEPENDENCY_NAME names it otherwise, e.g. postgres): a start
// that ends there is an outage, not counted (with HBKV_LAUNCH=while-serving, /ready says
// "waiting for backend" meanwhile).
// HBKV_SERVICE: how the ServerLaunch service runs. Unset: `app.addServices(launch)` and
// `app.runService()` (Hummingbird's inner group). `group`: an explicit ServiceGroup with the
// launch last. `none`: no service, `app.runService()` alone, whose ServiceGroup owns SIGTERM and
// never tells the organizer (the organizer sees the stop through a Dispatch source of its own).

LoggingSystem.bootstrap(StreamLogHandler.standardError)
let metricsRegistry = PrometheusCollectorRegistry()
MetricsSystem.bootstrap(PrometheusMetricsFactory(registry: metricsRegistry))
let environment = ProcessInfo.processInfo.environment
let logger = Logger(label: "hbkv")

let dataDirectory = environment["HBKV_DATA_DIR"] ?? "/var/lib/hbkv"
// HBKV_PORT: a port that stays the same across launches (a Prometheus scrape target), over CHAOS_PORT.
let port = (environment["HBKV_PORT"] ?? environment["CHAOS_PORT"]).flatMap(Int.init) ?? 8080
let launchInsideGroup = environment["HBKV_LAUNCH"] == "before-server-starts"
let launchWhileServing = environment["HBKV_LAUNCH"] == "while-serving"
let store = KeyValueStore(dataDirectory: dataDirectory)
try? FileManager.default.createDirectory(atPath: dataDirectory, withIntermediateDirectories: true)

ChaosProbe.declare(["kv.load", "kv.warmup", "kv.bind"])  // before the ServerLaunch, which attaches the probe
ChaosProbe.declare(["kv.repair"], phase: .repair)  // evaluated inside the repair (protocol 2 tells explore)
// Two consecutive launch crashes: quarantine the data file. If the relaunch still dies, exit 75
// before any repair or launch code (name it in the unit's RestartPreventExitStatus=). Each phase
// (launch, repair, relaunch) must reach the next within 1.5 s, or it is a hang: SIGABRT,
// recorded as launch-hang with every thread's stack, and counted.
let launch = ServerLaunch(
  stateDirectory: dataDirectory + "/launch",
  launchDeadline: .milliseconds(Int(environment["HBKV_LAUNCH_DEADLINE_MS"] ?? "") ?? 1500),
  policy: .threshold(2).whenExhausted(.exit(status: 75)), logger: logger)
let organizer = launch.organizer
organizer.recordMetrics()

/// The launch: everything between the process start and "the server is listening".
@Sendable func startUp() async throws {
  let outcome = try await launch.launch { context in
    logger.warning("repairing: quarantining the data file", metadata: ["count": "\(context.count)"])
    _ = FailpointRegistry.shared.evaluate("kv.repair")  // `hang`: a repair past the deadline
    try store.quarantineDataFile()
  }
  if case .repaired = outcome { logger.notice("relaunching after the repair") }
  if let backendPort = environment["HBKV_DEPENDENCY_PORT"].flatMap(Int.init) {
    let giveUp = Duration.milliseconds(Int(environment["HBKV_DEPENDENCY_GIVE_UP_MS"] ?? "") ?? 3000)
    try await launch.waitForDependency(environment["HBKV_DEPENDENCY_NAME"] ?? "backend") {
      try await Backend.waitUntilReachable(port: backendPort, giveUp: giveUp)
    }
  }
  try store.load()
  try await store.warmUp()
}

/// Failpoint `kv.bind`: `return(EADDRINUSE)` fails the server's start like a port in use.
@Sendable func checkBind() throws {
  if case .fail(let errno) = FailpointRegistry.shared.evaluate("kv.bind") {
    throw KeyValueStore.StoreError(description: "cannot bind 127.0.0.1:\(port): \(String(cString: strerror(errno)))")
  }
}

let service = environment["HBKV_SERVICE"]
var app = Server.application(
  store: store, port: port, logger: logger, organizer: organizer, metrics: metricsRegistry,
  beforeServerStarts: launchInsideGroup ? [startUp, checkBind] : [checkBind],
  onServerRunning: {
    guard launchWhileServing else { return await launch.markLaunchingFinished() }
    // Hummingbird handles connections only once this returns: the launch runs beside the server.
    Task {
      do {
        try await startUp()
      } catch {
        logger.error("hbkv failed: \(error)")
        exit(1)
      }
      await launch.markLaunchingFinished()
    }
  })
if service == nil { app.addServices(launch) }  // runs in the app's inner group

do {
  if !launchInsideGroup && !launchWhileServing { try await startUp() }
  if service == "group" {
    // Last in the group, so it is the first told about a graceful shutdown.
    let group = ServiceGroup(
      configuration: .init(services: [app, launch], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
    try await group.run()
  } else {
    try await app.runService()
  }
  logger.info("stopped")
  exit(0)
} catch {
  logger.error("hbkv failed: \(error)")
  exit(1)
}
