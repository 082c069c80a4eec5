import ChaosProbe
import Dispatch
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

/// Wires LaunchProtection, LaunchTasks and ChaosProbe together, the way an app would.
final class ReferenceApp: Sendable {
  let configuration: AppConfiguration
  let organizer: LaunchOrganizer
  let dataDirectory: String
  let stateDirectory: String
  /// `dependency`: the wait for it, at the start of the launch or of one task.
  let dependencyWait: DependencyWait?
  /// Dispatch signal sources kept alive for the process's life.
  let signalSources = Mutex<[SignalSourceBox]>([])
  /// `report_readiness`: the decision `organizer.status` named right before `launchingFinished()`.
  let readinessDecision = Mutex<LaunchDecision?>(nil)
  /// `status.since` as `report_readiness` read it during the launch.
  let readinessSince = Mutex<Date?>(nil)
  /// Right before the app asks the organizer to launch.
  let launchCalled = Mutex<Date?>(nil)
  /// When the repair began (the protect closure was called): `readiness` says whether the
  /// status's `since` is later, the relaunch's.
  let repairStarted = Mutex<Date?>(nil)
  /// `earlier_organizer`: the component's organizer, its launch begun before the app's.
  let earlier: LaunchOrganizer?

  init(configuration: AppConfiguration, stateDirectory: String) {
    self.configuration = configuration
    var protection = LaunchOrganizer.Configuration(stateDirectory: stateDirectory)
    // What the scenario does not set keeps the library's default, as in a user's app.
    if let milliseconds = configuration.launchDeadlineMilliseconds {
      protection.launchDeadline = .milliseconds(milliseconds)
    }
    if let durability = configuration.durability { protection.durability = durability }
    if let machine = configuration.machineIdentity { protection.machineIdentity = machine }
    if let notifyReady = configuration.notifyReady { protection.notifyReady = notifyReady }
    if let ignoreTermination = configuration.ignoreTermination { protection.ignoreTermination = ignoreTermination }
    if let ignoreReboots = configuration.ignoreReboots { protection.ignoreReboots = ignoreReboots }
    if let resetOnNewBinary = configuration.resetOnNewBinary { protection.resetOnNewBinary = resetOnNewBinary }
    if let milliseconds = configuration.repairTimeExtensionMilliseconds {
      protection.repairTimeExtension = .milliseconds(milliseconds)
    }
    self.organizer = LaunchOrganizer(configuration: protection)
    self.earlier =
      configuration.earlierOrganizer == true
      ? LaunchOrganizer(
        configuration: .init(
          stateDirectory: configuration.earlierOrganizerSharesState == true
            ? stateDirectory : stateDirectory + "/earlier-organizer")) : nil
    self.dependencyWait = DependencyWait(
      configuration, organizer: organizer, environment: ProcessInfo.processInfo.environment)
    self.dataDirectory = Repairs.dataDirectory(stateDirectory: stateDirectory)
    self.stateDirectory = stateDirectory
  }

  /// The tasks' failpoints: the workflow is built inside the launch (a repair may disable a
  /// task), so its names are declared up front. LaunchOrganizer's own points come with `attach`.
  var taskFailpoints: [String] {
    (ReferenceGraph.declarations.map(\.name) + (configuration.extraTasks ?? []).compactMap(\.name)).map {
      "task." + $0
    }
  }

  var policy: ProtectionPolicy {
    let ladder: ProtectionPolicy
    if let levels = configuration.levels, !levels.isEmpty {
      ladder = .escalation(levels.map { ($0.name, $0.at) })
    } else {
      ladder = .threshold(configuration.threshold ?? 2)
    }
    return ladder.whenExhausted(AppConfiguration.exhaustedAction(configuration.exhausted) ?? .repeatLastLevel)
  }

  func run() {
    // First, so that every thread made after it has SIGTERM blocked too.
    if configuration.sigtermSignalfd == true { SignalfdOwner.install(organizer) }
    if configuration.sigtermIgnored == true { signal(SIGTERM, SIG_IGN) }
    if let bytes = configuration.fileSizeLimit {
      // `ulimit -f` in a wrapper: a write past the limit fails with EFBIG (SIGXFSZ ignored,
      // as a shell leaves it for a command whose writes should fail rather than kill it).
      signal(SIGXFSZ, SIG_IGN)
      var limit = rlimit(rlim_cur: rlim_t(bytes), rlim_max: rlim_t(bytes))
      setrlimit(__rlimit_resource_t(RLIMIT_FSIZE.rawValue), &limit)
    }
    ChaosProbe.declare(taskFailpoints)
    var probe = ChaosProbe.Options()
    probe.crashCapture = configuration.crashCapture ?? true
    probe.crashCaptureOptions.chainToPreviousHandler = configuration.chain ?? false
    probe.crashCaptureOptions.maxFrames = configuration.maxFrames ?? 128
    probe.crashCaptureOptions.maxFramesWalked = configuration.maxFramesWalked ?? 512
    probe.crashCaptureOptions.prefaultUnwindTables = configuration.prefault ?? true
    probe.acceptsAppConfiguration = true
    probe.relaunchesAfterRepair = configuration.protectFinish != .never
    ChaosProbe.attach(organizer, options: probe)

    if configuration.sigtermSource == "before_launch" { startGracefulShutdownSource() }
    if configuration.sigtermHandler == "before_launch" { GracefulHandler.install(organizer) }
    if configuration.stayUp == true, configuration.sigtermSource == nil, configuration.sigtermHandler == nil {
      TerminationPipe.install()
    }
    // The organizer's first descriptor of the launch, the state lock's, is then 0.
    if configuration.closeStdin == true { close(STDIN_FILENO) }
    if configuration.reportWriteFailures == true { WriteFailureReport.install(organizer) }
    if configuration.reportReadiness == true { observeHang() }
    if configuration.launchLog == true { LaunchLog.install(organizer) }
    if configuration.eventLog == true { LaunchLog.events(organizer) }
    if configuration.stateFileReadOnly == true, !ReadOnlyStateFile.apply(stateDirectory: stateDirectory) { exit(7) }
    let sigtermBefore = SigtermAction.current()
    // Its launch closure returns without `launchingFinished()`: the launch stays open (and
    // SIGTERM watched for it) until the app's launch finishes it.
    earlier?.finishLaunching(policy: .threshold(100), launch: {}, protect: { _ in })
    if let earlier, configuration.earlierOrganizerFinishedFirst == true {
      earlier.launchingFinished()
      ChaosProbe.emit("earlier_organizer_finished")
    }
    if let earlier, configuration.earlierOrganizerUnfinished == true {
      ChaosProbe.emit(
        "earlier_organizer_started", ["count": earlier.status.count, "mode": earlier.status.modeName])
    }
    let zombie = configuration.zombieEarlierLaunch == true ? ZombieLaunch.start() : nil
    if configuration.prepareAllThreads == true, configuration.launchOn != "dispatch" {
      ChaosProbe.emit(
        "threads_prepared",
        ["current": CrashCapture.prepareCurrentThread(), "answered": CrashCapture.prepareAllThreads() ?? -1])
    }
    launchCalled.withLock { $0 = Date() }
    // errno as an interrupted call of the app's own left it: the library must not read it
    // before a call of its own failed.
    if configuration.staleErrno == true { errno = EINTR }
    switch configuration.launchOn ?? (configuration.launchOnThread == true ? "thread" : "main") {
    case "thread":
      // The launch on a thread of its own while the main thread waits (a hang's report then
      // holds both threads' backtraces).
      let done = DispatchSemaphore(value: 0)
      startThread(named: "launch") {
        CrashCapture.prepareCurrentThread()
        self.finishLaunching()
        done.signal()
      }
      done.wait()
    case "dispatch":
      // A Dispatch worker: SIGABRT and SIGTERM are blocked on it, and it has no alternate
      // signal stack unless CrashCapture.prepareAllThreads() reached it.
      let done = DispatchSemaphore(value: 0)
      let started = DispatchSemaphore(value: 0)
      let prepared = DispatchSemaphore(value: 0)
      let prepareAll = configuration.prepareAllThreads == true
      DispatchQueue.global().async {
        if prepareAll {
          started.signal()
          prepared.wait()
        }
        self.finishLaunching()
        done.signal()
      }
      if prepareAll {
        started.wait()
        let answered = CrashCapture.prepareAllThreads()
        // The worker waiting on `prepared` is another thread: a count reaches at least it.
        ChaosProbe.emit("threads_prepared", ["answered": answered ?? -1, "reached_worker": (answered ?? 0) >= 1])
        prepared.signal()
      }
      done.wait()
    case "async":
      let done = DispatchSemaphore(value: 0)
      Task.detached {
        await self.launchAsync()
        done.signal()
      }
      done.wait()
    default:
      finishLaunching()
    }
    if let zombie { ZombieLaunch.reap(zombie) }
    if configuration.reportReadiness == true { emitReadiness("after_launch") }
    if configuration.reportSigtermAction == true {
      ChaosProbe.emit(
        "sigterm_action", ["when": "after_launch", "as_before": SigtermAction.current() == sigtermBefore])
    }
    if configuration.refreshModules == true { ModuleRefresh.run() }
    if configuration.dependency?.afterLaunch == true { dependencyWait?.wait() }
    if configuration.launchTwice == true {
      // A second launch on the same organizer (a framework that calls the app's start-up
      // again): it runs nothing.
      organizer.finishLaunching(
        policy: policy, launch: { ChaosProbe.emit("second_launch_ran") },
        protect: { _ in ChaosProbe.emit("second_launch_ran") })
      ChaosProbe.emit("second_launch_returned")
    }
    if configuration.sigtermSource == "after_launch" { startGracefulShutdownSource() }

    if configuration.lifeActionsWhen != "during_launch" { addLifeActions() }
    if configuration.protectFinish == .afterLifeActions, organizer.protectFinished() { performLifeActions() }
    if configuration.secondCalls == true { SecondCalls.afterLaunch(organizer, keys: configuration.lifeActions ?? []) }
    if let exception = configuration.handleException, exception.when == "after_launch" {
      organizer.handleException(exception.type, detail: exception.fullDetail)
    }
    if configuration.stayUp == true {
      if configuration.sigtermSource != nil || configuration.sigtermHandler != nil {
        // The signal source owns SIGTERM: it ends the process.
        while true { pause() }
      }
      waitForTermination()
    }
  }
}
