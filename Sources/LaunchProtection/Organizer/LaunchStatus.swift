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

/// Where this process's launch stands, for health endpoints, probes and metrics: a snapshot
/// of the organizer's state taken under its lock (no I/O), cheap to read from any thread.
///
/// The mapping to Kubernetes probes (the Containers article, "Probes and metrics"):
/// - liveness: the process answers (a server answers 200 whatever the status);
/// - readiness: ``isReady``. Normal mode is ready once `launchingFinished()` was called;
///   protect mode and the relaunch are not ready until `launchingFinished()`; levels
///   exhausted with `.stayDegraded` are the app's choice, `Configuration.readyWhenDegraded`.
public struct LaunchStatus: Sendable, Equatable, CustomStringConvertible {
  /// What a readiness probe should be told.
  public enum Readiness: String, Sendable, Equatable, CaseIterable, CustomStringConvertible {
    /// Serve traffic.
    case ready
    /// Not ready: not started yet, or a launch, repair or relaunch is under way.
    case launching
    /// Not ready: degraded, and `Configuration.readyWhenDegraded` is false.
    case degraded

    /// The raw value (`ready`, `launching`, `degraded`).
    public var description: String { rawValue }
  }

  /// The current mode, with the level protect mode runs or the relaunch ran after. Protect
  /// mode held for good is ``isDegraded``.
  public var launchMode: LaunchMode
  /// Whether every level was attempted and the policy stays degraded: ``launchMode`` is
  /// `.protect`, the repair ran, and the launch is held for good (a maintenance mode until a
  /// new binary or an operator fixes it).
  public var isDegraded: Bool
  /// The protect level this launch attempted, kept once the launch finished; nil for a launch
  /// that did not protect.
  public var protectLevel: ProtectLevel?
  /// The consecutive launch crashes this launch saw at its start (0 before it started). The
  /// persisted count goes back to 0 at `launchingFinished()`; this stays what the launch saw.
  public var count: Int
  /// The type of the last crash cause known to this process (`SIGSEGV`, `launch-hang`, a
  /// reporter's exception name): the persisted one as of this launch's start, or one recorded
  /// since by `handleException`. Nil when none was ever recorded.
  public var lastCause: String?
  /// When the current mode began (for `idle`: when the organizer was made).
  public var since: Date
  /// When this launch started (`finishLaunching` / `launch`); nil while idle.
  public var startedAt: Date?
  /// Whether the app reports ready when degraded (`Configuration.readyWhenDegraded`).
  public var readyWhenDegraded: Bool
  /// The dependencies the launch waits for now (`waitForDependency`), or whose wait failed
  /// and still hold it; empty otherwise.
  public var waitingFor: [String] = []
  /// The launches before this one that ended waiting for a dependency (not counted), as this
  /// launch found them; nil when the last launch did not.
  public var dependencyOutage: DependencyOutage?
  /// Why this launch's count is what it is (every unfinished launch found, and what was made
  /// of it); nil before the launch starts.
  public var decision: LaunchDecision?

  /// Creates a status (the organizer makes them; apps may for their own tests). The protect
  /// level is `protectLevel`, else the one `launchMode` carries.
  public init(
    launchMode: LaunchMode, isDegraded: Bool = false, protectLevel: ProtectLevel? = nil, count: Int = 0,
    lastCause: String? = nil, since: Date, startedAt: Date? = nil, readyWhenDegraded: Bool = false
  ) {
    self.launchMode = launchMode
    self.isDegraded = isDegraded
    self.protectLevel = protectLevel ?? launchMode.protectLevel
    self.count = count
    self.lastCause = lastCause
    self.since = since
    self.startedAt = startedAt
    self.readyWhenDegraded = readyWhenDegraded
  }

  /// The mode's name, as the status line and the `launch_protection_mode` gauge say it: one
  /// of ``modeNames`` (`degraded` when ``isDegraded``, else ``launchMode``'s).
  public var modeName: String { isDegraded ? "degraded" : launchMode.description }

  /// Every name ``modeName`` may be, in the order of a launch.
  public static let modeNames = ["idle", "normal", "protect", "relaunched", "finished", "degraded"]

  /// Whether `launchingFinished()` was called.
  public var launchFinished: Bool { !isDegraded && launchMode == .finished }

  /// What a readiness probe should be told (see the type's documentation).
  public var readiness: Readiness {
    if isDegraded { return readyWhenDegraded ? .ready : .degraded }
    return launchMode == .finished ? .ready : .launching
  }

  /// Whether a readiness probe should succeed.
  public var isReady: Bool { readiness == .ready }

  /// How long the launch took, from its start to ``LaunchOrganizer/launchingFinished()``; nil
  /// until it finished. A `Duration`, like every interval of the API.
  public var launchTime: Duration? {
    guard launchFinished, let startedAt else { return nil }
    let seconds = max(0, since.timeIntervalSince(startedAt))
    return .nanoseconds(Int64((seconds * 1e9).rounded()))
  }

  /// How long the launch took, in seconds (0.1's name and type).
  @available(*, deprecated, message: "use launchTime, a Duration")
  public var launchDuration: TimeInterval? {
    guard launchFinished, let startedAt else { return nil }
    return max(0, since.timeIntervalSince(startedAt))
  }

  /// One line for a probe's body or a log: `protect level 1 (quarantine-data), count 2, last
  /// cause SIGILL, since 2026-11-24T06:35:09Z`; `normal, count 0, waiting for postgres, the
  /// previous 3 starts in a row ended waiting for postgres, since …` while a dependency is down;
  /// `…, state untrusted at /srv/state, since …` when the trust rule refused the state.
  public var description: String {
    var parts = [modeName]
    if let protectLevel { parts[0] += " level \(protectLevel.number) (\(protectLevel.name))" }
    parts.append("count \(count)")
    if !waitingFor.isEmpty { parts.append("waiting for " + waitingFor.joined(separator: " and ")) }
    if let outage = dependencyOutage, launchMode != .finished {
      let starts = outage.launchesInARow == 1 ? "start" : "\(outage.launchesInARow) starts in a row"
      parts.append("the previous \(starts) ended waiting for \(outage.dependency)")
    }
    if let lastCause { parts.append("last cause \(lastCause)") }
    // A refused state (another user's, a symlink…) leaves the launch unprotected: said here too,
    // so a probe's body shows it and not only the start's log.
    for problem in decision?.problems ?? [] where problem.code == .untrusted || problem.code == .wrongFileType {
      parts.append("state \(problem.code) at \(problem.path)")
    }
    parts.append("since \(Self.iso8601(since))")
    return parts.joined(separator: ", ")
  }

  /// `date` in UTC to the second, as `date.formatted(.iso8601)` writes it
  /// (`2026-11-24T06:35:09Z`), from `gmtime_r`: the format style would bring Foundation's
  /// calendar and time-zone code (about 14 MB) into a static binary.
  static func iso8601(_ date: Date) -> String {
    var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
    var parts = tm()
    guard gmtime_r(&seconds, &parts) != nil else { return "\(date.timeIntervalSince1970)" }
    func digits(_ value: Int32, _ count: Int) -> String {
      let text = String(value)
      return String(repeating: "0", count: max(0, count - text.count)) + text
    }
    return digits(parts.tm_year + 1900, 4) + "-" + digits(parts.tm_mon + 1, 2) + "-" + digits(parts.tm_mday, 2) + "T"
      + digits(parts.tm_hour, 2) + ":" + digits(parts.tm_min, 2) + ":" + digits(parts.tm_sec, 2) + "Z"
  }
}

extension LaunchOrganizer {
  /// Where this launch stands (``LaunchStatus``): a snapshot under the organizer's lock, no
  /// I/O, safe and cheap to read from any thread (a readiness handler, a metrics scrape).
  public var status: LaunchStatus {
    let readyWhenDegraded = configuration.readyWhenDegraded
    return inner.withLock { inner in
      let level: ProtectLevel?
      if case .protect(let attempted) = inner.decision?.mode { level = attempted } else { level = nil }
      var degraded = false
      if case .protect = inner.mode { degraded = inner.degraded }
      var status = LaunchStatus(
        launchMode: inner.mode, isDegraded: degraded, protectLevel: level,
        count: inner.decision?.count ?? 0, lastCause: inner.lastCause, since: inner.since,
        startedAt: inner.record?.startDate, readyWhenDegraded: readyWhenDegraded)
      if inner.mode.isLaunching { status.waitingFor = inner.awaitedDependencies }
      status.dependencyOutage = inner.outage
      status.decision = inner.decision
      return status
    }
  }
}
