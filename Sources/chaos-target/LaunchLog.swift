import LaunchProtection

/// `launch_log`: the reference app's own log on standard error, as a server that logs launch
/// protection through swift-log (`organizer.log(to:)`) shows it at swift-log's default level,
/// `info`: the stop-signal reports at the level the sink gives them (`LaunchEventLogger.level(of:)`:
/// warning when SIGTERM is no stop, notice when a stop can go unrecorded, debug otherwise) and
/// the outage history at a start after an outage (warning), one line each, in the
/// `<level> LaunchProtection: <message>` form. Scenarios check it with `stderr_contains:` and
/// `stderr_lacks:`.
enum LaunchLog {
  /// Logs `organizer`'s reports from now on (before the launch starts, like any observer).
  static func install(_ organizer: LaunchOrganizer) {
    organizer.observe { [weak organizer] observation in
      if let report = observation.stopSignal {
        // Below info (debug) a default logger prints nothing.
        guard report.stopCanGoUnrecorded else { return }
        line(report.stopsRecorded ? "notice" : "warning", "\(report) [launch.event=stop_signal]")
      }
      if let decision = observation.event?.decision, decision.followsDependencyOutage,
        let outage = organizer?.status.dependencyOutage
      {
        line("warning", "\(outage.history) [launch.event=dependency_outages]")
      }
    }
  }

  /// Logs every event of `organizer` from now on (`event_log`), in the same form.
  static func events(_ organizer: LaunchOrganizer) {
    organizer.observe { observation in
      guard let event = observation.event else { return }
      line("info", "\(event)")
    }
  }

  private static func line(_ level: String, _ message: String) {
    writeStandardError("\(level) LaunchProtection: \(message)\n")
  }
}
