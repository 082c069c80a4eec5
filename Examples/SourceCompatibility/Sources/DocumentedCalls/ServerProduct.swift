import LaunchProtectionServer
import Logging
import ServiceLifecycle

// The server product's documented calls other than Hummingbird's: the README's Hummingbird
// snippet itself is Examples/ServerQuickStart (CI builds and runs it).

/// README, "Integration in ten lines": the explicit `ServiceGroup`, the launch last.
public func readmeServerExplicitGroup(app: some Service) async throws {
  let launch = ServerLaunch(stateDirectory: "/var/lib/todos/launch", launchDeadline: .seconds(30), logger: logger)
  try await launch.begin { _ in clearCaches() }
  await launch.markFinished()  // what Hummingbird's onServerRunning calls
  _ = launch.status
  let group = ServiceGroup(
    configuration: .init(services: [app, launch], gracefulShutdownSignals: [.sigterm], logger: logger))
  try await group.run()
}

/// `ServerLaunch`'s doc comments: every organizer setting, the repair's context.
public func serverLaunchDocComments() async throws {
  var configuration = LaunchOrganizer.Configuration(stateDirectory: "/var/lib/todos/launch")
  configuration.readyWhenDegraded = true
  let launch = ServerLaunch(configuration: configuration, policy: .threshold(3))
  let outcome = try await launch.begin { context in
    logger.warning("repairing", metadata: ["count": "\(context.count)"])
    clearCaches()
  }
  if case .repaired = outcome { launch.organizer.keepAlive() }
  _ = ServerLaunch(stateDirectory: "/var/lib/todos/launch", crashCapture: false)
}
