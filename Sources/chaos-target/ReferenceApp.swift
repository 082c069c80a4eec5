import CComparisonHandlers
import Failpoints
import Foundation
import LaunchProtection
import LaunchTasks

/// Wires LaunchProtection, LaunchTasks, crash capture, the failpoints and the event log
/// together, the way an app would.
final class ReferenceApp: Sendable {
  let configuration: AppConfiguration
  let organizer: LaunchOrganizer
  let events: EventLog?
  let failpoints: FailpointRegistry
  let dataDirectory: String

  init(configuration: AppConfiguration, stateDirectory: String, events: EventLog?, failpoints: FailpointRegistry) {
    self.configuration = configuration
    self.events = events
    self.failpoints = failpoints
    self.organizer = LaunchOrganizer(stateDirectory: stateDirectory)
    self.dataDirectory = Repairs.dataDirectory(stateDirectory: stateDirectory)
  }

  /// Every failpoint this app evaluates; `CHAOS_FAILPOINTS` naming another is an error.
  static func failpointNames(_ configuration: AppConfiguration) -> [String] {
    [
      "launch.begin", "launch.finished", "protect.begin", "protect.finish", "store.write", "store.fsync",
      "store.rename",
    ]
      + (ReferenceGraph.declarations.map(\.name) + (configuration.extraTasks ?? []).compactMap(\.name)).map {
        "task." + $0
      }
      + (configuration.lifeActions ?? []).map { "life." + $0 }
  }

  var policy: ProtectionPolicy {
    if let levels = configuration.levels, !levels.isEmpty {
      return .escalation(levels.map { ($0.name, $0.at) })
    }
    return .threshold(configuration.threshold ?? 2)
  }

  func run() {
    if configuration.comparisonHandler == "glibc" {
      cmp_install_glibc_backtrace_handler(2)
    } else if configuration.crashCapture ?? true {
      installCrashCapture()
    }
    failpoints.setObserver { [events] trigger in
      events?.emitFailpoint(name: trigger.name, action: trigger.action.spec, t: trigger.monotonicNanoseconds)
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
    options.prefaultUnwindTables = configuration.prefault ?? true
    do {
      try CrashCapture.install(options)
    } catch {
      events?.emit("crash_capture_unavailable", ["detail": error.description])
    }
    failpoints.setThreadPreparer { CrashCapture.prepareCurrentThread() }
  }

  private func launch() {
    _ = failpoints.evaluate("launch.begin")
    let workflow = makeWorkflow()
    do {
      try workflow.run()
    } catch {
      events?.emit("workflow_error", ["detail": error.description])
      exit(3)
    }
    if configuration.printTimeline == true { print(workflow.generateTimeline().render()) }
    if workflow.states.values.contains(where: { if case .failed = $0 { true } else { false } }) {
      // A launch whose tasks failed did not finish: exit non-zero, which counts as a launch crash.
      exit(4)
    }
    _ = failpoints.evaluate("launch.finished")
    if configuration.launchingFinished ?? true { organizer.launchingFinished() }
  }

  private func makeWorkflow() -> Workflow {
    var options = Workflow.Options()
    options.evaluatesFailpoints = false  // each task evaluates its own, inside its own code
    options.failpoints = failpoints
    options.threadPreparer = { CrashCapture.prepareCurrentThread() }
    if let concurrency = configuration.concurrency { options.maxConcurrency = max(1, concurrency) }
    options.observer = { [events] event in
      switch event {
      case .taskStarted(let name, let thread): events?.emit("task_start", ["task": name, "thread": thread])
      case .taskFinished(let name): events?.emit("task_end", ["task": name])
      case .taskFailed(let name, let reason): events?.emit("task_failed", ["task": name, "reason": reason])
      case .lifecycle(let event, let task): events?.emit("lifecycle", ["event": event, "task": task])
      }
    }
    let workflow = Workflow(options: options)
    let disabled = Set((configuration.disabledTasks ?? []) + Repairs.disabledTasks(dataDirectory: dataDirectory))
    try? FileManager.default.createDirectory(atPath: dataDirectory, withIntermediateDirectories: true)
    var declarations = ReferenceGraph.declarations.map { declaration in
      (declaration, configuration.taskOverrides?[declaration.name])
    }
    for extra in configuration.extraTasks ?? [] {
      let declaration = ReferenceGraph.Declaration(
        name: extra.name ?? "extra", after: [], placement: .concurrent, priority: 500, type: ExtraTask.self)
      declarations.append((declaration, extra))
    }
    for (declaration, override) in declarations {
      if disabled.contains(declaration.name) {
        events?.emit("task_disabled", ["task": declaration.name])
        continue
      }
      let placement: TaskPlacement =
        (override?.placement).map { $0 == "launching" ? .launchingThread : .concurrent } ?? declaration.placement
      let task = declaration.type.init(
        declaration.name, after: (override?.after ?? declaration.after).filter { !disabled.contains($0) },
        priority: override?.priority ?? declaration.priority, placement: placement,
        work: override?.sleepMilliseconds ?? 0, dataDirectory: dataDirectory)
      workflow.add([task])
    }
    return workflow
  }

  private func protect(_ context: ProtectContext) {
    _ = failpoints.evaluate("protect.begin")
    for repair in configuration.repairs ?? [] {
      events?.emit("repair", ["repair": repair, "level": context.level.number])
      Repairs.perform(repair, dataDirectory: dataDirectory)
    }
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
