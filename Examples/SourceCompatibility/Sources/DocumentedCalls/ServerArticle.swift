import LaunchProtectionMetrics
import LaunchProtectionServer

// "Protecting a Hummingbird or Vapor server" (LaunchProtectionServer's catalog): its Vapor 4
// variant against the stand-ins of VaporStand-ins.swift, and its other calls.

/// The Vapor 4 variant, as the article writes it.
public func articleVaporServer() async throws {
  let protection = ServerLaunch(stateDirectory: "/var/lib/todos/launch", launchDeadline: .seconds(30))
  try await protection.launch { _ in clearCaches() }  // counts the launch; after 2 crashes in a row, repairs
  let app = try await Application.make(.detect())
  try await configure(app)  // your start-up: routes, migrations; a crash here is a launch crash
  try await app.startup()  // boots, binds, then makes Vapor's SIGTERM source
  app.running?.onStop.whenComplete { _ in protection.organizer.stopRequested() }  // Vapor's stop is a stop
  await protection.markLaunchingFinished()  // listening: the launch succeeded
  try await app.running?.onStop.get()  // serves until SIGTERM
  try await app.asyncShutdown()
}

/// The app's own failpoints, declared before the launch is made; a dependency wait whose
/// result is ignored; the outage metrics; the shutdown path, declared.
public func articleServerCalls(client: DatabaseClient) async throws {
  ChaosProbe.declare(["todos.migrate"])
  let protection = ServerLaunch(stateDirectory: "/var/lib/todos/launch")
  try await protection.launch { _ in clearCaches() }
  _ = FailpointRegistry.shared.evaluate("todos.migrate")  // a fault injected here is a launch crash
  try await protection.waitForDependency("postgres") { try await client.query("SELECT 1") }
  protection.organizer.recordMetrics()
  protection.organizer.declareShutdownPath()
  _ = protection.organizer.hasDeclaredShutdownPath
  _ = protection.status.dependencyOutage?.history
  _ = LaunchMetrics.Name.dependencyOutageStarts + LaunchMetrics.Name.dependencyOutageLast
}

extension DatabaseClient {
  /// A probe query, as the article's dependency wait makes one.
  func query(_ text: String) async throws -> Int { 1 }
}
