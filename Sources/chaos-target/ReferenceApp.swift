import Failpoints
import Foundation
import LaunchProtection

/// Wires LaunchProtection, the failpoints and the event log together, the way an app would.
final class ReferenceApp: Sendable {
  /// Every failpoint this app evaluates; `CHAOS_FAILPOINTS` naming another is an error.
  static func failpointNames(_ configuration: AppConfiguration) -> [String] {
    [
      "launch.begin", "launch.finished", "protect.begin", "protect.finish", "store.write", "store.fsync",
      "store.rename",
    ]
      + (configuration.tasks ?? defaultTasks).map { "task." + $0 }
      + (configuration.lifeActions ?? []).map { "life." + $0 }
  }
  static let defaultTasks = ["config", "database", "network", "auth", "cache-warmup", "analytics", "ui"]

  let configuration: AppConfiguration
  let organizer: LaunchOrganizer
  let events: EventLog?
  let failpoints: FailpointRegistry

  init(configuration: AppConfiguration, stateDirectory: String, events: EventLog?, failpoints: FailpointRegistry) {
    self.configuration = configuration
    self.events = events
    self.failpoints = failpoints
    self.organizer = LaunchOrganizer(stateDirectory: stateDirectory)
  }

  var policy: ProtectionPolicy {
    if let levels = configuration.levels, !levels.isEmpty {
      return .escalation(levels.map { ($0.name, $0.at) })
    }
    return .threshold(configuration.threshold ?? 2)
  }

  func run() {
    if configuration.crashCapture ?? true { installCrashCapture() }
    failpoints.setObserver { [events] trigger in
      events?.emit("failpoint", ["name": trigger.name, "action": trigger.action.spec], t: trigger.monotonicNanoseconds)
    }
    organizer.addObserver { [events] event in events.map { EventTranslation.emit(event, to: $0) } }

    organizer.finishLaunching(policy: policy, launch: { self.launch() }, protect: { self.protect($0) })

    let lifeKeys = configuration.lifeActions ?? []
    for key in lifeKeys {
      organizer.addLifeAction(
        key: key,
        action: { [self] in
          _ = failpoints.evaluate("life." + key)
          events?.emit("life_action_run", ["key": key])
        },
        protect: { [events] in events?.emit("life_action_protect_run", ["key": key]) })
    }
    if configuration.protectFinish == .afterLifeActions, organizer.protectFinished() {
      for key in lifeKeys { organizer.performAction(key: key) }
    }
    if configuration.stayUp == true { waitForTermination() }
  }

  private func installCrashCapture() {
    var options = CrashCapture.Options()
    options.eventsFileDescriptor = events?.fd
    options.reportDirectory = organizer.store.directory
    options.chainToPreviousHandler = configuration.chain ?? false
    options.maxFrames = configuration.maxFrames ?? 128
    do {
      try CrashCapture.install(options)
    } catch {
      events?.emit("crash_capture_unavailable", ["detail": error.description])
    }
    failpoints.setThreadPreparer { CrashCapture.prepareCurrentThread() }
  }

  private func launch() {
    _ = failpoints.evaluate("launch.begin")
    for task in configuration.tasks ?? Self.defaultTasks {
      events?.emit("task_start", ["task": task])
      _ = failpoints.evaluate("task." + task)
      events?.emit("task_end", ["task": task])
    }
    _ = failpoints.evaluate("launch.finished")
    if configuration.launchingFinished ?? true { organizer.launchingFinished() }
  }

  private func protect(_ context: ProtectContext) {
    _ = failpoints.evaluate("protect.begin")
    _ = failpoints.evaluate("protect.finish")
    if (configuration.protectFinish ?? .immediate) == .immediate { organizer.protectFinished() }
  }

  private func waitForTermination() {
    var signals = sigset_t()
    sigemptyset(&signals)
    sigaddset(&signals, SIGTERM)
    sigaddset(&signals, SIGINT)
    sigprocmask(SIG_BLOCK, &signals, nil)
    var received: Int32 = 0
    sigwait(&signals, &received)
  }
}
