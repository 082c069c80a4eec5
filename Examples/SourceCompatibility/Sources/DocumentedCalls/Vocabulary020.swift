import LaunchProtection
import LaunchProtectionServiceLifecycle

// 0.2.0's one vocabulary, as today's README and articles spell it (the names 0.1 had are in
// Documentation.swift and EarlierReadmes.swift, and must keep compiling, deprecated).

/// README, "A daemon, with the closure API"; Getting started's daemon; Systemd's loop.
public func readmeClosureAPI() {
  let organizer = LaunchOrganizer(stateDirectory: "/var/lib/mydaemon/launch")
  organizer.observe { observation in log.info("launch protection: \(observation)") }
  organizer.finishLaunching(
    policy: .threshold(2),
    launch: {
      startServer()
      organizer.launchingFinished()
    },
    protect: { _ in
      clearCaches()
      organizer.protectFinished()
    })
  while running {
    SystemdNotify.keepAlive()
    serve(for: .seconds(5))
  }
  _ = organizer.status.decision?.count
  _ = LaunchOrganizer.Configuration.failpointNames
}

/// Observing: one observer for transitions, SIGTERM's owners and dependency waits.
public func observeEverything(_ organizer: LaunchOrganizer) {
  organizer.observe { observation in
    if case .launchingFinished = observation.event { log.info("launched") }
    if let report = observation.stopSignal { log.warning("\(report)") }
    if let wait = observation.dependencyWait { log.info("\(wait)") }
  }
}

/// ServersAndSignals: the service's async finish, a stop from async code.
public func serviceVocabulary(_ organizer: LaunchOrganizer) async {
  let service = LaunchProtectionService(organizer: organizer)
  await service.markLaunchingFinished()
  organizer.stopRequested()
}

/// Getting started's typed ladder.
public func typedLadder(_ organizer: LaunchOrganizer) {
  enum Repair: String { case clearCaches, resetConfig, wipeData }
  organizer.finishLaunching(
    policy: .escalation([Repair.clearCaches: 2, .resetConfig: 4, .wipeData: 6]),
    launch: {},
    protect: { context in
      switch context.level(as: Repair.self) {
      case .clearCaches: clearCaches()
      case .resetConfig: resetConfiguration()
      case .wipeData: wipeData()
      case nil: break
      }
      organizer.protectFinished()
    })
}
