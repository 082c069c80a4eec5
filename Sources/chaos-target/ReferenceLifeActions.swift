import ChaosProbe
import LaunchProtection

/// The reference app's life actions and its readiness reports: what an app adds to the
/// organizer and what its probe would read from it.
extension ReferenceApp {
  /// `life_actions`, each added with an action and a protect action that only emit events.
  func addLifeActions() {
    for key in configuration.lifeActions ?? [] {
      organizer.addLifeAction(
        key: key,
        action: { ChaosProbe.emit("life_action_run", ["key": key]) },
        protect: { ChaosProbe.emit("life_action_protect_run", ["key": key]) })
    }
  }

  /// After `protectFinished()`: performs each listed key. A key listed twice is performed
  /// twice: the second must find nothing held (at most once).
  func performLifeActions() {
    for key in configuration.lifeActions ?? [] {
      ChaosProbe.emit("perform_action", ["key": key, "performed": organizer.performAction(key: key)])
    }
  }

  /// `report_readiness`: what a probe would be told once the launch deadline fired, in the
  /// half second before the process ends (`hang_status`).
  func observeHang() {
    organizer.observe { [organizer] observation in
      guard observation.event?.kind == .launchDeadlineExceeded else { return }
      let status = organizer.status
      ChaosProbe.emit(
        "hang_status",
        ["last_cause": status.lastCause ?? "none", "readiness": status.readiness.rawValue, "ready": status.isReady])
    }
  }

  /// What a readiness probe would be told now (`report_readiness`).
  func emitReadiness(_ when: String) {
    let status = organizer.status
    var fields: [String: any Sendable] = [
      "when": when, "ready": status.isReady, "readiness": status.readiness.rawValue,
      "last_cause": status.lastCause ?? "none", "launch_finished": status.launchFinished,
      // The protect level the status names (0: none), as a dashboard shows it.
      "level": status.protectLevel?.number ?? 0, "level_name": status.protectLevel?.name ?? "none",
      // What an app computes from the status: the launch time (known once finished) and
      // whether its policy protects at the count this launch saw (the mode's reason).
      "launch_time_known": status.launchTime != nil, "policy_protects": policy.protects(count: status.count),
      // Whether the app runs under a systemd that takes notifications (NOTIFY_SOCKET).
      "notify_available": SystemdNotify.isAvailable,
    ]
    // An app that logs the decision when it changes compares it with the one it read before:
    // the launch's decision, made once at its start, is equal to itself after the launch.
    if when == "during_launch" {
      readinessDecision.withLock { $0 = status.decision }
      readinessSince.withLock { $0 = status.since }
      // The launching mode began when the app asked for the launch, not before.
      if let called = launchCalled.withLock({ $0 }) { fields["since_launch"] = status.since >= called }
    } else if let earlier = readinessDecision.withLock({ $0 }) {
      fields["same_decision"] = status.decision == earlier
    }
    // The finished mode began when the launch finished: after the launching mode it ends.
    if when == "after_launch", let during = readinessSince.withLock({ $0 }) {
      fields["since_finish"] = status.since > during
    }
    if when == "after_launch" {
      // What the app's own systemd calls answer: a keep-alive (false without a watchdog) and
      // a status line (false without a usable NOTIFY_SOCKET).
      fields["keep_alive_sent"] = SystemdNotify.keepAlive()
      fields["status_sent"] = SystemdNotify.send("STATUS=serving")
    }
    // `since` is when the current mode began: in the relaunch, after the repair started.
    if let repair = repairStarted.withLock({ $0 }) { fields["since_relaunch"] = status.since >= repair }
    // The status line a log shows ends with `since`, in UTC as ISO 8601 writes it.
    fields["says_since"] = status.description.hasSuffix("since " + status.since.formatted(.iso8601))
    ChaosProbe.emit("readiness", fields)
  }
}
