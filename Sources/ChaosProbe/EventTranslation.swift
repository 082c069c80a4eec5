import LaunchProtection

/// Turns LaunchProtection's observer events into protocol events.
enum EventTranslation {
  static func emit(_ event: LaunchProtectionEvent, to log: EventLog, declaring declaration: PolicyDeclaration) {
    switch event.kind.known {
    case .launch:
      guard let decision = event.decision else { return }
      var fields: [String: Any] = [
        "count": decision.count, "mode": modeName(decision.mode), "previous_count": decision.previousCount,
        "counted": decision.countedCrashes.map { Int($0.process.pid) },
        "ignored": decision.ignored.map { ["pid": Int($0.record.process.pid), "reason": $0.reason.rawValue] },
        "reset_by_new_binary": decision.resetByNewBinary, "protocol": ChaosProbe.protocolVersion,
      ]
      if case .protect(let level) = decision.mode { fields["level"] = level.number }
      if decision.exhausted { fields["exhausted"] = true }
      if let policy = decision.policy { fields["policy"] = declaration.fields(policy) }
      if !decision.dependencyOutages.isEmpty {
        fields["dependency_outages"] = decision.dependencyOutages.map {
          ["pid": Int($0.process.pid), "dependency": $0.waitingFor ?? ""] as [String: Any]
        }
      }
      if let crash = decision.previousCrash {
        fields["previous_crash"] = [
          "type": crash.type, "detail": crash.detail ?? "", "after_launch": crash.afterLaunch,
        ]
      }
      log.emit("launch", fields)
    case .protectEnter:
      guard let count = event.count, let level = event.level else { return }
      log.emit("protect_enter", ["count": count, "level": level.number, "level_name": level.name])
    case .protectFinish:
      log.emit("protect_finish", ["level": event.level?.number ?? 0])
    case .relaunch:
      log.emit("relaunch")
    case .launchingFinished:
      log.emit("launching_finished")
    case .lifeAction:
      guard let key = event.lifeActionKey, let outcome = event.lifeActionOutcome else { return }
      log.emit("life_action", ["key": key, "mode": outcome.rawValue])
    case .stateProblem:
      guard let problem = event.stateProblem else { return }
      var fields: [String: any Sendable] = ["kind": problem.kind, "detail": problem.description, "path": problem.path]
      if let owner = problem.owner { fields["owner"] = Int(owner) }
      if let mode = problem.mode { fields["mode"] = FileTrust.octal(mode) }
      log.emit("state_problem", fields)
    case .exceptionRecorded:
      log.emit("exception_recorded", ["type": event.cause?.type ?? ""])
    case .uncountedExit:
      log.emit("uncounted_exit", ["reason": event.uncountedReason?.rawValue ?? ""])
    case .launchDeadlineExceeded:
      guard let phase = event.phase, let deadline = event.deadline else { return }
      log.emit("launch_hang", ["phase": phase.step, "deadline_ms": Int(deadline.wholeMicroseconds / 1000)])
    case .stopRequested:
      log.emit("stop_requested")
    case .levelsExhausted:
      guard let count = event.count, let level = event.level, let action = event.exhaustedAction else { return }
      log.emit("protect_exhausted", ["count": count, "level": level.number, "action": action.description])
    case .privateStateDirectory:
      log.emit(
        "private_state_directory",
        ["directory": event.stateDirectory ?? "", "reason": event.stateDirectoryReason ?? ""])
    }
  }

  /// `dependency_wait {dependency}`, `dependency_answered {dependency, waited_ms}`,
  /// `dependency_failed {dependency, waited_ms}`.
  static func emit(_ wait: DependencyWait, to log: EventLog) {
    var fields: [String: Any] = ["dependency": wait.dependency]
    if let waited = wait.waited { fields["waited_ms"] = Int(waited.wholeMicroseconds / 1000) }
    switch wait.stage.known {
    case .waiting: log.emit("dependency_wait", fields)
    case .answered, .failed: log.emit("dependency_\(wait.stage)", fields)
    }
  }

  /// `stop_signal {owner, stops_recorded, stop_can_go_unrecorded, during_launch, advice,
  /// taken_after_us?}`: `during_launch` says whether the owner took SIGTERM during the launch
  /// (exact, for scenarios; the time is not).
  static func emit(_ report: StopSignalReport, to log: EventLog) {
    var fields: [String: Any] = [
      "owner": report.owner.name, "stops_recorded": report.stopsRecorded, "during_launch": report.takenAfter != nil,
      "stop_can_go_unrecorded": report.stopCanGoUnrecorded, "advice": report.advice,
    ]
    if let after = report.takenAfter { fields["taken_after_us"] = Int(after.wholeMicroseconds) }
    log.emit("stop_signal", fields)
  }

  static func modeName(_ mode: LaunchMode) -> String {
    if case .protect = mode { return "protect" }
    return "normal"
  }
}
