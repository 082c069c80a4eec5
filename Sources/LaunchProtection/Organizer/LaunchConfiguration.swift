import Failpoints

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

extension LaunchOrganizer {
  /// How the organizer persists and filters.
  public struct Configuration: Sendable {
    /// The failpoints the organizer evaluates in ``failpoints`` (`life.*` stands for
    /// `life.<key>` of every life action). Declare them when you configure failpoints.
    ///
    /// - `launch.begin`: right before the launch closure runs (normal launch and relaunch);
    /// - `launch.finished`: on entry to `launchingFinished()`, before anything is persisted;
    /// - `protect.begin`: right before the repair closure runs;
    /// - `protect.finish`: on entry to `protectFinished()`, before the held launch is released;
    /// - `life.<key>`: right before a life action's `action` runs;
    /// - `store.write`, `store.fsync`, `store.rename`: the state store's I/O.
    public static let failpointNames = [
      "launch.begin", "launch.finished", "protect.begin", "protect.finish", "life.*", "store.write", "store.fsync",
      "store.rename",
    ]

    /// Where the state lives; survives repairs (never wipe it from a repair). Made private
    /// (0700, its missing parents too) when missing. It must belong to this process's user or
    /// to root; when other users can write it (a Kubernetes `emptyDir`), the state lives in its
    /// subdirectory `private-<euid>`, which only this user can write. A symlink as it is
    /// followed only when trusted (root's or this user's, in a directory no one else can
    /// write). ``LaunchOrganizer/stateDirectoryInUse`` is the directory used. The Security
    /// article says why and what else to check.
    public var stateDirectory: String
    /// A group (gid) that may read the state and the crash reports, a monitoring agent's, in
    /// the spirit of systemd's `StateDirectoryMode=0750`: the directories the library makes
    /// are then 0750 and its files 0640, given to that group. Nil (default): 0700 and 0600.
    public var readableByGroup: UInt32?
    /// Don't count a launch that was unfinished when the machine rebooted (boot id changed).
    public var ignoreReboots = true
    /// The machine this process runs on, recorded in its sentinel (nil: not recorded). Set it
    /// when the state directory can move between machines — a Kubernetes PersistentVolume, a
    /// network file system — to the node's name (the downward API's `spec.nodeName` as an
    /// environment variable). A different boot id is then a reboot only on the same machine; an
    /// unfinished launch from another machine counts like any other (nothing here tells that
    /// machine's crash from its failure). Without it, every change of boot id is a reboot.
    public var machineIdentity: String?
    /// Don't count a launch that was asked to stop (a clean shutdown): a SIGTERM seen by the
    /// organizer's handler during the launch, or `stopRequested()`. The handler composes with
    /// other owners of SIGTERM (the "Servers and signals" article, "Stopping during the launch").
    public var ignoreTermination = true
    /// Reset the count when the executable changed (a new build fixes the crash loop).
    public var resetOnNewBinary = true
    /// How long to wait for another process's lock before going on without it.
    public var lockTimeout: Duration = .seconds(2)
    /// What a state update survives: `.processCrash` (default, no fsync on the launch path)
    /// or `.powerLoss` (every update fsynced). See `Durability`.
    public var durability: Durability = .processCrash
    /// The registry whose `store.*` failpoints the store evaluates.
    public var failpoints: FailpointRegistry = .shared
    /// Process facts; `.system` outside tests.
    public var environment: LaunchEnvironment = .system
    /// Off (nil) by default. When set, each phase of the launch — the launch itself, the
    /// repair in protect mode, the relaunch after `protectFinished()`, each timed from its own
    /// start — must reach the next phase or `launchingFinished()` within it. A phase that
    /// does not is recorded as hung (cause `launch-hang`, with a `thread_dump` of every thread
    /// that can take one) and the process ends by SIGABRT, whatever thread runs the phase and
    /// whatever its signal mask, so the next launch counts it like a crash. It can never fire
    /// after `launchingFinished()` or a stop request. Choose it shorter than any outside start
    /// timeout (systemd's `TimeoutStartSec`).
    public var launchDeadline: Duration?
    /// When started by systemd (`NOTIFY_SOCKET`), send `READY=1` from `launchingFinished()`.
    public var notifyReady = true
    /// Told to systemd (`EXTEND_TIMEOUT_USEC`) when a repair or the relaunch starts, when no
    /// `launchDeadline` is set (with one, the deadline is what is announced).
    public var repairTimeExtension: Duration = .seconds(90)
    /// What ``LaunchStatus/isReady`` says once every level was attempted and the policy stays
    /// degraded (`.stayDegraded`): false (default) keeps a readiness probe failing, so a load
    /// balancer sends nothing to a process in maintenance mode; true when the degraded
    /// service is still worth sending traffic to.
    public var readyWhenDegraded = false

    /// Creates a configuration for a state directory.
    public init(stateDirectory: String) { self.stateDirectory = stateDirectory }
  }
}
