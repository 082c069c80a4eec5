import Dispatch
import LaunchProtection

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

/// The reference app's configuration, read from `CHAOS_APP` (JSON). Every field is optional;
/// unknown fields are an error.
///
/// ```json
/// { "threshold": 2,
///   "levels": [{"name": "clear-caches", "at": 2}, {"name": "reset-config", "at": 4}],
///   "repairs": ["clear-cache", "disable-task:network", "reset-config"],
///   "protect_finish": "immediate" | "after_life_actions" | "never",
///   "launching_finished": true,
///   "life_actions": ["didBecomeActive"], "life_actions_when": "after_launch" | "during_launch",
///   "stay_up": false,
///   "task_overrides": {"network": {"after": ["config"], "placement": "concurrent", "priority": 10, "sleep_ms": 50}},
///   "extra_tasks": [{"name": "search-index", "after": ["database"]}],
///   "disabled_tasks": ["analytics"],
///   "concurrency": 2, "print_timeline": false, "trace_file": "launch.trace.json",
///   "crash_capture": true, "chain": false, "max_frames": 128, "max_frames_walked": 512,
///   "prefault": true,
///   "launch_deadline_ms": 1000, "repair_ms": 0, "keep_alive": true,
///   "launch_on_thread": false, "durability": "processCrash" | "powerLoss",
///   "launch_on": "main" | "thread" | "dispatch" | "async", "prepare_all_threads": false,
///   "exhausted": "repeat-last-level" | "stay-degraded" | "exit(75)",
///   "sigterm_source": "before_launch" | "during_launch" | "before_finish" | "after_launch", "sigterm_wired": false,
///   "sigterm_handler": "before_launch" | "during_launch" | "before_finish" | "chaining_during_launch",
///   "machine_identity": "node-a",
///   "notify_ready": true, "repair_time_extension_ms": 90000,
///   "handle_exception": {"type": "NSInvalidArgumentException", "detail": "…", "when": "during_launch" | "after_launch",
///     "detail_bytes": 70000},
///   "ignore_termination": true, "ignore_reboots": true, "reset_on_new_binary": true, "repair_throws": [1],
///   "dependency": {"name": "postgres", "task": "database", "give_up_ms": 3000, "port": 5432, "attempts": 1,
///     "after_launch": false},
///   "close_stdin": false, "report_readiness": false, "sigterm_signalfd": false,
///   "reexec_during_launch": false, "report_sigterm_action": false, "relative_state_directory": "fresh/launch",
///   "state_file_read_only": false, "report_write_failures": false, "report_launch_release": false,
///   "refresh_modules": false, "earlier_organizer": false, "state_subdirectory": "fresh/launch",
///   "sigterm_ignored": false, "earlier_organizer_unfinished": false, "earlier_organizer_finished_first": false,
///   "stale_errno": false, "earlier_organizer_shares_state": false,
///   "launch_twice": false, "file_size_limit": 6000,
///   "state_directory_read_only": false, "zombie_earlier_launch": false, "launch_log": false,
///   "event_log": false }
/// ```
struct AppConfiguration: Decodable {
  var threshold: Int?
  var levels: [Level]?
  var repairs: [String]?
  var protectFinish: ProtectFinish?
  var launchingFinished: Bool?
  var lifeActions: [String]?
  /// When `life_actions` are added: `after_launch` (default, once `finishLaunching` returned)
  /// or `during_launch` (inside the launch, right before `launchingFinished()`: in protect
  /// mode that is the relaunch, after `protectFinished()`).
  var lifeActionsWhen: String?
  /// `second_calls`: the organizer's calls made again once made (SecondCalls.swift).
  var secondCalls: Bool?
  var stayUp: Bool?
  var taskOverrides: [String: TaskOverride]?
  var extraTasks: [TaskOverride]?
  var disabledTasks: [String]?
  var concurrency: Int?
  var printTimeline: Bool?
  /// Write the workflow's timeline here in the Trace Event Format after each run of the launch
  /// (the relaunch overwrites it); relative to the state directory (`CHAOS_STATE_DIR`).
  var traceFile: String?
  /// Install the crash handler (default true).
  var crashCapture: Bool?
  /// Hand crashes on to the previous handler, e.g. the Swift runtime's backtracer (default false:
  /// the runtime's backtracer waits 30 s for a key on a terminal).
  var chain: Bool?
  /// Frame cap of crash records (default 128).
  var maxFrames: Int?
  /// Frames a crash walk steps through at most (default 512).
  var maxFramesWalked: Int?
  /// Prefault the unwind tables at install (default true).
  var prefault: Bool?
  /// `LaunchOrganizer.Configuration.launchDeadline` in milliseconds (default: none).
  var launchDeadlineMilliseconds: Int?
  /// How long the repair takes (sleeps) before its repairs run (default 0).
  var repairMilliseconds: Int?
  /// With `stay_up`, send systemd watchdog keep-alives while up (default true).
  var keepAlive: Bool?
  /// Run `finishLaunching` on a thread of its own while the main thread waits (default false).
  var launchOnThread: Bool?
  /// `LaunchOrganizer.Configuration.durability` (default `processCrash`).
  var durability: Durability?
  /// Where the launch runs: `main` (default), `thread` (as `launch_on_thread`), `dispatch` (a
  /// Dispatch worker, whose signal mask blocks SIGABRT and SIGTERM) or `async` (the async API,
  /// from a task on the cooperative pool).
  var launchOn: String?
  /// With `launch_on: dispatch`: `CrashCapture.prepareAllThreads()` once the Dispatch worker
  /// that will run the launch exists, giving it (a thread the app did not create) an
  /// alternate signal stack. Otherwise: right before the launch, on the main thread, when no
  /// other thread exists yet. Event `threads_prepared {answered, reached_worker}`.
  var prepareAllThreads: Bool?
  /// `ProtectionPolicy.whenExhausted`: `repeat-last-level` (default), `stay-degraded`, `exit(N)`.
  var exhausted: String?
  /// Give SIGTERM to a Dispatch signal source, as swift-service-lifecycle does, created before
  /// `finishLaunching`, inside the launch (`during_launch`: at its start, a ServiceGroup started
  /// before `launchingFinished`; `before_finish`: right before `launchingFinished`, as a server
  /// that binds, makes its source and finishes)
  /// or after it; a SIGTERM then shuts down gracefully (event `graceful_shutdown`,
  /// `stopRequested()` during the launch, exit 0 once finished).
  var sigtermSource: String?
  /// With `sigterm_source`: whether the source tells the organizer (`stopRequested()`), as an
  /// app wiring `LaunchProtectionService` does (default true). False: the source only shuts
  /// down, as Vapor's serve command and Hummingbird's `runService()` do.
  var sigtermWired: Bool?
  /// An app's own SIGTERM handler (sigaction, no chaining, never telling the organizer),
  /// installed `before_launch`, `during_launch` (at its start) or `before_finish` (right before
  /// `launchingFinished`, after the stop watcher's last re-check when the launch ran past its
  /// first second): a graceful shutdown (event
  /// `graceful_shutdown`, exit 0 once the launch finished) that a hung launch never completes.
  var sigtermHandler: String?
  /// `LaunchOrganizer.Configuration.machineIdentity`: the machine (node) this launch runs on.
  var machineIdentity: String?
  /// `LaunchOrganizer.Configuration.notifyReady` (default true).
  var notifyReady: Bool?
  /// `LaunchOrganizer.Configuration.repairTimeExtension` in milliseconds (default 90 s).
  var repairTimeExtensionMilliseconds: Int?
  /// Call `handleException` once, during the launch (default) or after it finished.
  var handleException: HandleException?
  /// `LaunchOrganizer.Configuration.ignoreTermination` (default true: a stop during the
  /// launch is not counted).
  var ignoreTermination: Bool?
  /// `LaunchOrganizer.Configuration.ignoreReboots` (default true: a launch that died before a
  /// reboot is not counted).
  var ignoreReboots: Bool?
  /// `LaunchOrganizer.Configuration.resetOnNewBinary` (default true: a new executable resets the count).
  var resetOnNewBinary: Bool?
  /// With `launch_on: async`: the repair throws at these protect levels (from 1); the app
  /// reports the error (`launch_error`) and exits 5, leaving the launch unfinished.
  var repairThrows: [Int]?
  /// Wait for a dependency during the launch (see `Dependency`).
  var dependency: Dependency?
  /// Close standard input before the launch, as a daemon started with it closed runs: the
  /// library's next descriptor (the state lock's) is then 0.
  var closeStdin: Bool?
  /// Emit `readiness {when, ready, readiness, last_cause, level, level_name, …}` from
  /// `organizer.status` right before `launchingFinished()` and once the launch returned: what a
  /// readiness probe would answer.
  var reportReadiness: Bool?
  /// Log stop-signal reports and the outage history on standard error (`LaunchLog`).
  var launchLog: Bool?
  /// Log every event of the organizer on standard error, one line each (`LaunchLog.events`):
  /// under systemd those are the service's launch lines in its journal.
  var eventLog: Bool?
  /// Block SIGTERM and read it through a signalfd made before the launch (see `SignalfdOwner`).
  var sigtermSignalfd: Bool?
  /// Ignore SIGTERM (`SIG_IGN`) before the launch, as a process started under `nohup`-like
  /// wrappers or by a supervisor that ignores it does: the organizer reports the owner once.
  var sigtermIgnored: Bool?
  /// At the start of the launch, `execv` the app's own executable once (as an app upgrading
  /// itself in place does): the new image keeps the pid and start time and begins a launch of
  /// its own, while the old image's launch is still in the state, unfinished.
  var reexecDuringLaunch: Bool?
  /// Emit `sigterm_action {when: after_launch, as_before}` once the launch returned: whether
  /// SIGTERM's action (handler and `SA_SIGINFO`) is the one it had before `finishLaunching`.
  var reportSigtermAction: Bool?
  /// Give the organizer this relative state directory, from a working directory set to the
  /// scenario's state directory (as an app configured with `var/launch` under its `WORKDIR`):
  /// missing parents, the first component included, are made on the first update.
  var relativeStateDirectory: String?
  /// Before the launch, make the state file read-only for the app (see `ReadOnlyStateFile`).
  var stateFileReadOnly: Bool?
  /// Emit `write_failed {operation, errno}` for each failed state write (see `WriteFailureReport`).
  var reportWriteFailures: Bool?
  /// Emit `launch_closure {released}` once `finishLaunching` returned: whether the launch
  /// closure (and what it captured) was let go (see `HeldLaunchWatch`).
  var reportLaunchRelease: Bool?
  /// Once launched, `dlopen` a library and emit `modules_refreshed {refreshed}` with
  /// `CrashCapture.refreshModules()`' answer.
  var refreshModules: Bool?
  /// A second organizer in the process (a component with a state directory of its own): its
  /// launch begins before the app's and finishes at the start of the app's launch (event
  /// `earlier_organizer_finished`).
  var earlierOrganizer: Bool?
  /// With `earlier_organizer`: its launch is never finished (a component still starting when
  /// the app ends), and `earlier_organizer_started {count, mode}` reports what it decided.
  var earlierOrganizerUnfinished: Bool?
  /// With `earlier_organizer`: its launch finishes before the app's begins (a component that
  /// started, and gave SIGTERM back, before the app's organizer watches it).
  var earlierOrganizerFinishedFirst: Bool?
  /// `errno` is EINTR when the launch begins (on the main thread), as a call of the app's own
  /// that a signal interrupted leaves it.
  var staleErrno: Bool?
  /// With `earlier_organizer`: it keeps its state in the app's state directory (both left at
  /// the same default), so each organizer meets the other's launch in one state file.
  var earlierOrganizerSharesState: Bool?
  /// Once launched, calls `finishLaunching` again on the same organizer (events
  /// `second_launch_ran` if its closures run, `second_launch_returned`).
  var launchTwice: Bool?
  /// The largest file the process may write, in bytes (`RLIMIT_FSIZE`, SIGXFSZ ignored): a
  /// write past it fails with EFBIG.
  var fileSizeLimit: Int?
  /// The state directory on a read-only filesystem for this process (EROFS): a read-only bind
  /// mount in a mount namespace of its own (needs CAP_SYS_ADMIN, as the container scenarios).
  var stateDirectoryReadOnly: Bool?
  /// Before the launch, a child's launch on the same state directory dies and is left a
  /// zombie, reaped once this launch finished (ZombieLaunch.swift).
  var zombieEarlierLaunch: Bool?
  /// Give the organizer this directory under the scenario's state directory (an absolute path
  /// whose leading directories exist and whose last ones do not, made on the first update).
  var stateSubdirectory: String?

  enum CodingKeys: String, CodingKey, CaseIterable {
    case threshold, levels, repairs, concurrency, chain, prefault, durability
    case protectFinish = "protect_finish"
    case launchingFinished = "launching_finished"
    case lifeActions = "life_actions"
    case lifeActionsWhen = "life_actions_when"
    case secondCalls = "second_calls"
    case stayUp = "stay_up"
    case taskOverrides = "task_overrides"
    case extraTasks = "extra_tasks"
    case disabledTasks = "disabled_tasks"
    case printTimeline = "print_timeline"
    case traceFile = "trace_file"
    case crashCapture = "crash_capture"
    case maxFrames = "max_frames"
    case maxFramesWalked = "max_frames_walked"
    case launchDeadlineMilliseconds = "launch_deadline_ms"
    case repairMilliseconds = "repair_ms"
    case keepAlive = "keep_alive"
    case launchOnThread = "launch_on_thread"
    case launchOn = "launch_on"
    case exhausted
    case prepareAllThreads = "prepare_all_threads"
    case sigtermSource = "sigterm_source"
    case sigtermWired = "sigterm_wired"
    case sigtermHandler = "sigterm_handler"
    case machineIdentity = "machine_identity"
    case notifyReady = "notify_ready"
    case repairTimeExtensionMilliseconds = "repair_time_extension_ms"
    case handleException = "handle_exception"
    case ignoreTermination = "ignore_termination"
    case ignoreReboots = "ignore_reboots"
    case resetOnNewBinary = "reset_on_new_binary"
    case repairThrows = "repair_throws"
    case dependency
    case closeStdin = "close_stdin"
    case reportReadiness = "report_readiness"
    case sigtermSignalfd = "sigterm_signalfd"
    case sigtermIgnored = "sigterm_ignored"
    case reexecDuringLaunch = "reexec_during_launch"
    case reportSigtermAction = "report_sigterm_action"
    case relativeStateDirectory = "relative_state_directory"
    case stateFileReadOnly = "state_file_read_only"
    case reportWriteFailures = "report_write_failures"
    case reportLaunchRelease = "report_launch_release"
    case refreshModules = "refresh_modules"
    case earlierOrganizer = "earlier_organizer"
    case earlierOrganizerUnfinished = "earlier_organizer_unfinished"
    case earlierOrganizerFinishedFirst = "earlier_organizer_finished_first"
    case staleErrno = "stale_errno"
    case earlierOrganizerSharesState = "earlier_organizer_shares_state"
    case launchTwice = "launch_twice"
    case fileSizeLimit = "file_size_limit"
    case stateDirectoryReadOnly = "state_directory_read_only"
    case zombieEarlierLaunch = "zombie_earlier_launch"
    case stateSubdirectory = "state_subdirectory"
    case launchLog = "launch_log"
    case eventLog = "event_log"
  }
}
