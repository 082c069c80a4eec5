import ChaosProbe
import LaunchProtection
import LaunchTasks
import Synchronization

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// The launch itself: the organizer asked to finish launching, the workflow built and run,
/// and the repairs the protect closure makes.
extension ReferenceApp {
  func finishLaunching() {
    guard configuration.reportLaunchRelease == true else {
      organizer.finishLaunching(policy: policy, launch: { self.launch() }, protect: { self.protect($0) })
      return
    }
    let watch = HeldLaunchWatch()
    organizer.finishLaunching(policy: policy, launch: watch.wrap { self.launch() }, protect: { self.protect($0) })
    ChaosProbe.emit("launch_closure", ["released": watch.isReleased])
  }

  /// The async API on the cooperative pool: the repair is awaited, then the launch runs as
  /// the relaunch (`protect_finish` does not apply).
  func launchAsync() async {
    do {
      _ = try await organizer.launch(policy: policy) { context in
        self.runRepairs(context)
        if self.configuration.repairThrows?.contains(context.level.number) == true {
          throw RepairFailed(level: context.level.number)
        }
      }
      // The async API's launch waits with the async waitForDependency.
      if configuration.dependency?.waitsAtLaunchStart == true { await dependencyWait?.waitAsync() }
      launch(finishing: false, waitedForDependency: true)
      if configuration.launchingFinished ?? true { await organizer.markLaunchingFinished() }
    } catch {
      ChaosProbe.emit("launch_error", ["detail": "\(error)"])
      if let failure = error as? LaunchOrganizerError, failure.code == .degraded { return }
      exit(5)
    }
  }

  func launch(finishing: Bool = true, waitedForDependency: Bool = false) {
    if configuration.reexecDuringLaunch == true { Reexec.once() }
    if let earlier, earlier.currentMode != .finished, configuration.earlierOrganizerUnfinished != true {
      earlier.launchingFinished()
      ChaosProbe.emit("earlier_organizer_finished")
    }
    if let exception = configuration.handleException, (exception.when ?? "during_launch") == "during_launch" {
      organizer.handleException(exception.type, detail: exception.fullDetail)
    }
    // A ServiceGroup starting while the launch is unfinished takes SIGTERM here.
    if configuration.sigtermSource == "during_launch", signalSources.withLock({ $0.isEmpty }) {
      startGracefulShutdownSource()
    }
    if configuration.sigtermHandler == "during_launch" { GracefulHandler.install(organizer) }
    if configuration.sigtermHandler == "chaining_during_launch" { ChainingHandler.install() }
    if configuration.dependency?.waitsAtLaunchStart == true, !waitedForDependency { dependencyWait?.wait() }
    let workflow = makeWorkflow()
    ChaosProbe.attach(workflow)
    do {
      try workflow.run()
    } catch {
      ChaosProbe.emit("workflow_error", ["detail": error.description])
      exit(3)
    }
    if configuration.printTimeline == true { print(workflow.generateTimeline().render()) }
    if let traceFile = configuration.traceFile {
      let path = traceFile.hasPrefix("/") ? traceFile : stateDirectory + "/" + traceFile
      let trace = workflow.generateTimeline().traceEvents(processName: "chaos-target", pid: Int(getpid()))
      do { try trace.write(toFile: path, atomically: true, encoding: .utf8) } catch {
        ChaosProbe.emit("trace_file_error", ["path": path, "detail": "\(error)"])
      }
    }
    if workflow.states.values.contains(where: { if case .failed = $0 { true } else { false } }) {
      // A launch whose tasks failed did not finish: exit non-zero, which counts as a launch crash.
      exit(4)
    }
    // Right before the launch finishes, as a server that binds, then makes its signal source
    // and declares the launch finished: the stop watcher's adoption races the finish.
    if configuration.sigtermSource == "before_finish" { startGracefulShutdownSource() }
    if configuration.sigtermHandler == "before_finish" { GracefulHandler.install(organizer) }
    if configuration.reportReadiness == true { emitReadiness("during_launch") }
    if configuration.lifeActionsWhen == "during_launch" { addLifeActions() }
    if finishing, configuration.launchingFinished ?? true { organizer.launchingFinished() }
  }

  func makeWorkflow() -> Workflow {
    var options = Workflow.Options()
    options.evaluatesFailpoints = false  // each task evaluates its own, inside its own code
    if let concurrency = configuration.concurrency { options.maxConcurrency = max(1, concurrency) }
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
        ChaosProbe.emit("task_disabled", ["task": declaration.name])
        continue
      }
      let placement: TaskPlacement =
        (override?.placement).map { $0 == "launching" ? .launchingThread : .concurrent } ?? declaration.placement
      let task = declaration.type.init(
        declaration.name, after: (override?.after ?? declaration.after).filter { !disabled.contains($0) },
        priority: override?.priority ?? declaration.priority, placement: placement,
        work: override?.sleepMilliseconds ?? 0, dataDirectory: dataDirectory)
      if let wait = dependencyWait, configuration.dependency?.task == declaration.name { task.beforeRun = wait.wait }
      workflow.add([task])
    }
    return workflow
  }

  func protect(_ context: ProtectContext) {
    repairStarted.withLock { $0 = Date() }
    runRepairs(context)
    guard (configuration.protectFinish ?? .immediate) == .immediate else { return }
    if !organizer.protectFinished(), context.exhausted { ChaosProbe.emit("degraded", ["level": context.level.number]) }
    if configuration.secondCalls == true { SecondCalls.inRepair(organizer) }
  }

  func runRepairs(_ context: ProtectContext) {
    if let milliseconds = configuration.repairMilliseconds, milliseconds > 0 {
      // A loop, not one usleep: a thread dump's signal would end a single sleep early.
      let end = ContinuousClock.now + .milliseconds(milliseconds)
      while ContinuousClock.now < end { usleep(10_000) }
    }
    for repair in configuration.repairs ?? [] {
      ChaosProbe.emit("repair", ["repair": repair, "level": context.level.number])
      Repairs.perform(repair, dataDirectory: dataDirectory)
    }
  }
}
