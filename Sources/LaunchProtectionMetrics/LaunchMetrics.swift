import LaunchProtection
import Metrics

/// Records launch protection through swift-metrics, named by Prometheus conventions:
///
/// | metric | type | labels | what |
/// | --- | --- | --- | --- |
/// | `launch_protection_launches_total` | counter | `outcome` | launches started (`normal`, `protect`, `degraded`), relaunched after a repair (`relaunched`), finished (`finished`) |
/// | `launch_protection_counted_crashes_total` | counter | `cause` | launch crashes in a row before this start (``LaunchDecision/count``), by the last one's cause (`SIGSEGV`, `launch-hang`; `unknown` without a crash report: SIGKILL, OOM kill, `exit(n)`); stops and outages are never counted |
/// | `launch_protection_protect_entries_total` | counter | `level` | protect mode entered, by level number |
/// | `launch_protection_levels_exhausted_total` | counter | | every level attempted and the launch died again |
/// | `launch_protection_consecutive_crashes` | gauge | | the count this launch saw (``LaunchStatus/count``) |
/// | `launch_protection_mode` | gauge | `mode` | 1 for the current ``LaunchStatus/modeName``, 0 for the others |
/// | `launch_protection_protect_level` | gauge | | the level this launch attempted, 0 for none |
/// | `launch_protection_launch_duration_seconds` | timer | | from the start of the launch to `launchingFinished()` |
/// | `launch_protection_waiting_for_dependency` | gauge | `dependency` | 1 while the launch waits for it (or its wait failed), 0 once it answered |
/// | `launch_protection_dependency_outages_total` | counter | `dependency` | starts in a row before this one that ended waiting for it (``DependencyOutage/launchesInARow``; not counted as crashes) |
/// | `launch_protection_dependency_outage_starts` | gauge | `dependency` | the same starts in a row, as this start found them (``LaunchStatus/dependencyOutage``) |
/// | `launch_protection_dependency_outage_last_seconds` | gauge | `dependency` | when the last of those starts ended, in seconds since 1970 |
/// | `launch_protection_dependency_outage_since_seconds` | gauge | `dependency` | when the first of those starts ended (``DependencyOutage/since``) |
/// | `launch_protection_launch_start_seconds` | gauge | | when this process's launch started, in seconds since 1970 (0 before): alert rules use it as the age of what the other series say |
///
/// Each process exports what happened before its start, for its whole lifetime: the first
/// process that serves after a crash loop, a repair or an outage shows the crashes, the level,
/// the exhausted levels and the outage history at its first scrape, and keeps them (nothing
/// resets when its launch finishes). The counters start again with every process: read them
/// per instance (`max`), not with `increase()`, which misses a series' first value.
/// `Monitoring/launch-protection.rules.yml` holds alert rules on these series.
///
/// ```swift
/// MetricsSystem.bootstrap(PrometheusMetricsFactory(registry: registry))
/// organizer.recordMetrics()        // before the launch starts, like any observer
/// ```
public final class LaunchMetrics: Sendable {
  /// The metric names.
  public enum Name {
    /// Counter, label `outcome`.
    public static let launches = "launch_protection_launches_total"
    /// Counter, label `cause`.
    public static let countedCrashes = "launch_protection_counted_crashes_total"
    /// Counter, label `level`.
    public static let protectEntries = "launch_protection_protect_entries_total"
    /// Counter.
    public static let levelsExhausted = "launch_protection_levels_exhausted_total"
    /// Gauge.
    public static let consecutiveCrashes = "launch_protection_consecutive_crashes"
    /// Gauge, label `mode`.
    public static let mode = "launch_protection_mode"
    /// Gauge.
    public static let protectLevel = "launch_protection_protect_level"
    /// Timer (a histogram in seconds with Prometheus).
    public static let launchDuration = "launch_protection_launch_duration_seconds"
    /// Gauge, label `dependency`.
    public static let waitingForDependency = "launch_protection_waiting_for_dependency"
    /// Counter, label `dependency`.
    public static let dependencyOutages = "launch_protection_dependency_outages_total"
    /// Gauge, label `dependency`.
    public static let dependencyOutageStarts = "launch_protection_dependency_outage_starts"
    /// Gauge, label `dependency`.
    public static let dependencyOutageLast = "launch_protection_dependency_outage_last_seconds"
    /// Gauge, label `dependency`.
    public static let dependencyOutageSince = "launch_protection_dependency_outage_since_seconds"
    /// Counter, label `kind` (`StateProblem.Code`'s name: `untrusted`, `corrupt`…).
    public static let stateProblems = "launch_protection_state_problems_total"
    /// Gauge: when this process's launch started, in seconds since 1970.
    public static let launchStart = "launch_protection_launch_start_seconds"
  }

  private let factory: any MetricsFactory
  private let levelsExhausted: Counter
  private let consecutiveCrashes: Gauge
  private let modes: [(mode: String, gauge: Gauge)]
  private let protectLevel: Gauge
  private let launchDuration: Metrics.Timer
  private let launchStart: Gauge

  /// Makes the metrics that exist from the start (the gauges, the exhausted-levels counter and
  /// the duration) in `factory`; the labelled counters appear with their first value.
  public init(factory: any MetricsFactory = MetricsSystem.factory) {
    self.factory = factory
    levelsExhausted = Counter(label: Name.levelsExhausted, factory: factory)
    consecutiveCrashes = Gauge(label: Name.consecutiveCrashes, factory: factory)
    modes = LaunchStatus.modeNames.map {
      ($0, Gauge(label: Name.mode, dimensions: [("mode", $0)], factory: factory))
    }
    protectLevel = Gauge(label: Name.protectLevel, factory: factory)
    launchDuration = Metrics.Timer(label: Name.launchDuration, factory: factory)
    launchStart = Gauge(label: Name.launchStart, factory: factory)
  }

  /// Records one event; `status` is the organizer's status after it (the gauges' values).
  public func record(_ event: LaunchProtectionEvent, status: LaunchStatus) {
    switch event.kind.known {
    case .launch:
      guard let decision = event.decision else { break }
      increment(Name.launches, ("outcome", Self.outcome(of: decision)))
      if let started = status.startedAt { launchStart.record(started.timeIntervalSince1970) }
      // The whole run of crashes before this start, not only the one it found: the processes
      // that crashed never served a scrape, so this one tells of them.
      if decision.count > 0 {
        let cause = decision.previousCrash.flatMap { $0.afterLaunch ? nil : $0.type } ?? "unknown"
        increment(Name.countedCrashes, ("cause", cause), by: decision.count)
      }
      recordOutages(decision, history: status.dependencyOutage)
    case .protectEnter:
      increment(Name.protectEntries, ("level", "\(event.level?.number ?? 0)"))
    case .relaunch:
      increment(Name.launches, ("outcome", "relaunched"))
    case .launchingFinished:
      increment(Name.launches, ("outcome", "finished"))
      if let time = status.launchTime {
        launchDuration.recordNanoseconds(
          time.components.seconds * 1_000_000_000 + time.components.attoseconds / 1_000_000_000)
      }
    case .levelsExhausted:
      levelsExhausted.increment()
    case .stateProblem:
      // An untrusted state directory leaves every launch unprotected: alert on this counter.
      increment(Name.stateProblems, ("kind", event.stateProblem?.kind ?? "unknown"))
    case .protectFinish, .lifeAction, .exceptionRecorded, .uncountedExit, .launchDeadlineExceeded, .stopRequested,
      .privateStateDirectory:
      break  // no metric of their own; the gauges below follow the status
    }
    update(status)
  }

  /// Records a wait for a dependency; `status` is the organizer's status after it.
  public func record(_ wait: DependencyWait, status: LaunchStatus) {
    Gauge(label: Name.waitingForDependency, dimensions: [("dependency", wait.dependency)], factory: factory)
      .record(status.waitingFor.contains(wait.dependency) ? 1 : 0)
  }

  /// Sets the gauges to `status`.
  public func update(_ status: LaunchStatus) {
    consecutiveCrashes.record(status.count)
    protectLevel.record(status.protectLevel?.number ?? 0)
    for (mode, gauge) in modes { gauge.record(mode == status.modeName ? 1 : 0) }
  }

  /// The starts before this one that ended waiting for a dependency: the whole run of them
  /// (the history's `launchesInARow`, 3 after 3 outage starts), and the history's gauges, kept
  /// for the process's lifetime. A launch found ending waiting for another dependency than
  /// the history's counts once.
  private func recordOutages(_ decision: LaunchDecision, history: DependencyOutage?) {
    guard decision.followsDependencyOutage else { return }
    for outage in decision.dependencyOutages where outage.waitingFor != history?.dependency {
      increment(Name.dependencyOutages, ("dependency", outage.waitingFor ?? "unknown"))
    }
    guard let history else { return }
    increment(Name.dependencyOutages, ("dependency", history.dependency), by: history.launchesInARow)
    let gauges = outageGauges(history.dependency)
    gauges.starts.record(history.launchesInARow)
    gauges.last.record(history.decisionDate.timeIntervalSince1970)
    gauges.since.record(history.since.timeIntervalSince1970)
  }

  private func outageGauges(_ dependency: String) -> (starts: Gauge, last: Gauge, since: Gauge) {
    (
      Gauge(label: Name.dependencyOutageStarts, dimensions: [("dependency", dependency)], factory: factory),
      Gauge(label: Name.dependencyOutageLast, dimensions: [("dependency", dependency)], factory: factory),
      Gauge(label: Name.dependencyOutageSince, dimensions: [("dependency", dependency)], factory: factory)
    )
  }

  /// The `outcome` label of a launch: the mode it started in.
  static func outcome(of decision: LaunchDecision) -> String {
    guard case .protect = decision.mode else { return "normal" }
    let degraded = decision.exhausted && decision.policy?.exhausted == .stayDegraded
    return degraded ? "degraded" : "protect"
  }

  private func increment(_ label: String, _ dimension: (String, String), by amount: Int = 1) {
    Counter(label: label, dimensions: [dimension], factory: factory).increment(by: amount)
  }
}

extension LaunchOrganizer {
  /// Records this organizer's events and status as metrics (``LaunchMetrics``) in `factory`
  /// (the bootstrapped one by default). Call it before the launch starts, like any observer.
  @discardableResult
  public func recordMetrics(factory: any MetricsFactory = MetricsSystem.factory) -> LaunchMetrics {
    let metrics = LaunchMetrics(factory: factory)
    metrics.update(status)
    observe { [weak self] observation in
      guard let self else { return }
      if let event = observation.event { metrics.record(event, status: self.status) }
      if let wait = observation.dependencyWait { metrics.record(wait, status: self.status) }
    }
    return metrics
  }
}
