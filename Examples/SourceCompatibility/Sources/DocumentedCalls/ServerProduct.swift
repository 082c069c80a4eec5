import LaunchProtectionServer
import Logging
import ServiceLifecycle

// The server product's documented calls other than Hummingbird's: the README's Hummingbird
// snippet itself is Examples/ServerQuickStart (CI builds and runs it).

/// README, "Integration in ten lines": the explicit `ServiceGroup`, the launch last.
public func readmeServerExplicitGroup(app: some Service) async throws {
  let protection = ServerLaunch(stateDirectory: "/var/lib/todos/launch", launchDeadline: .seconds(30), logger: logger)
  try await protection.launch { _ in clearCaches() }
  await protection.markLaunchingFinished()  // what Hummingbird's onServerRunning calls
  _ = protection.status
  let group = ServiceGroup(
    configuration: .init(services: [app, protection], gracefulShutdownSignals: [.sigterm], logger: logger))
  try await group.run()
}

/// `ServerLaunch`'s doc comments: every organizer setting, the repair's context.
public func serverLaunchDocComments() async throws {
  var configuration = LaunchOrganizer.Configuration(stateDirectory: "/var/lib/todos/launch")
  configuration.readyWhenDegraded = true
  let protection = ServerLaunch(configuration: configuration, policy: .threshold(3))
  let outcome = try await protection.launch { context in
    logger.warning("repairing", metadata: ["count": "\(context.count)"])
    clearCaches()
  }
  if case .repaired = outcome { protection.organizer.keepAlive() }
  _ = ServerLaunch(stateDirectory: "/var/lib/todos/launch", crashCapture: false)
}
