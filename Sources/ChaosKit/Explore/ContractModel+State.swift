import Foundation

/// Why the last launch that ended unfinished was not counted, as the state records it
/// (`lastUncountedExit`; "What counts": a clean exit, a stop, a reboot).
package enum UncountedTrace: Sendable, Equatable {
  /// Nothing recorded yet.
  case none
  /// `exit(0)` during the launch.
  case cleanExit
  /// A stop request (SIGTERM) during the launch, not counted (`ignoreTermination`).
  case terminated
  /// The machine rebooted since the launch died (`ignoreReboots`).
  case reboot
  /// A declared app's own way of ending after a stop (it may exit 0 or die by the signal):
  /// not predicted until a launch records a reason of its own.
  case unknown

  /// `last_uncounted_exit` as the state spells it; nil: nothing to predict.
  var reason: String? {
    switch self {
    case .cleanExit: "cleanExit"
    case .terminated: "terminated"
    case .reboot: "reboot"
    case .none, .unknown: nil
    }
  }
}

/// What the state holds after a launch besides the count: the records of unfinished launches
/// (`launchesInProgress`) and the reason for the last one not counted. "What counts" and the
/// organizer's contract: a launch's decision resolves every record the last launch left
/// (counted, or not counted with its reason); a finished launch and a clean exit remove their
/// own; a launch that died leaves its record for the next launch, and only that one.
extension ContractModel {
  /// The decision of the next launch: the records left are resolved, the reason for one not
  /// counted is recorded (a reboot wins over a stop, as the organizer checks it first).
  mutating func decideRecords(rebooted: Bool, app: ExplorationApp) {
    if rebooted, app.ignoresReboots {
      lastUncounted = .reboot
    } else if stopped, app.ignoresTermination {
      // A declared app stopped may have exited 0 instead (its record then gone, `cleanExit`).
      lastUncounted = records == nil ? .unknown : .terminated
    }
    stopped = false
  }

  /// What the launch leaves in the state, written into `prediction`.
  mutating func leaveRecords(
    after step: ExplorationStep, finished: Bool, _ prediction: inout Prediction, app: ExplorationApp
  ) {
    var stoppedAtFailpoint = false
    if case .sigterm = step.judgedAction, step.reached, prediction.signal == SIGTERM { stoppedAtFailpoint = true }
    if step.processes > 1 {
      // Which sibling counted which is timing: the records left after a shared crash are too.
      records = finished ? 0 : nil
    } else if finished {
      records = 0
    } else if app.declared, stoppedAtFailpoint || prediction.degraded {
      // A declared app ends after a stop (or serves degraded until stopped) its own way.
      records = nil
      stopped = app.ignoresTermination
      lastUncounted = .unknown
    } else if prediction.outcome == .exit, prediction.exitCode == 0 {
      records = 0
      lastUncounted = .cleanExit
    } else {
      records = 1
      stopped = stoppedAtFailpoint && app.ignoresTermination
    }
    prediction.launchesInProgress = records
    prediction.lastUncountedExit = lastUncounted.reason
  }
}
