/// Readable one-line descriptions of the events, for logs (`"\(event)"`).
extension LaunchProtectionEvent: CustomStringConvertible {
  public var description: String {
    switch self {
    case .launch(let decision): decision.description
    case .protectEnter(let count, let level):
      "protect mode: repair level \(level.number) (\(level.name)) after \(count) consecutive launch crashes"
    case .protectFinish(let level): "repair level \(level.number) (\(level.name)) finished"
    case .relaunch: "relaunching in this process after the repair"
    case .launchingFinished: "launch finished; crash count reset to 0"
    case .lifeAction(let key, let outcome): "life action \(key): \(outcome.rawValue)"
    case .stateProblem(let problem): "state problem: \(problem)"
    case .exceptionRecorded(let cause):
      "recorded \(cause.type)\(cause.afterLaunch ? " after the launch (not counted)" : " during the launch")"
    case .uncountedExit(let reason): "launch ended before finishing (\(reason.rawValue)); not counted"
    case .launchDeadlineExceeded(let phase, let deadline):
      "the \(phase) ran past its \(deadline) deadline; aborting (the next launch counts it)"
    case .stopRequested: "stop requested during the launch; this launch will not be counted"
    case .levelsExhausted(let count, let level, let action):
      "every repair level failed (last: \(level.number) \(level.name)) after \(count) launch crashes; \(action)"
    }
  }
}

extension LaunchDecision: CustomStringConvertible {
  public var description: String {
    var parts = ["launch: \(count) consecutive launch crash\(count == 1 ? "" : "es")"]
    switch mode {
    case .protect(let level): parts.append("protect mode at level \(level.number) (\(level.name))")
    default: parts.append("normal mode")
    }
    if !countedCrashes.isEmpty {
      parts.append("counted pid \(countedCrashes.map { String($0.process.pid) }.joined(separator: ", "))")
    }
    for (record, reason) in ignored { parts.append("ignored pid \(record.process.pid) (\(reason.rawValue))") }
    for record in dependencyOutages {
      parts.append("not counted pid \(record.process.pid) (ended waiting for \(record.waitingFor ?? "a dependency"))")
    }
    if resetByNewBinary { parts.append("count reset by a new binary") }
    if exhausted { parts.append("levels exhausted") }
    if let crash = previousCrash { parts.append("previous crash \(crash.type)") }
    if !problems.isEmpty { parts.append("\(problems.count) state problem\(problems.count == 1 ? "" : "s")") }
    return parts.joined(separator: "; ")
  }
}
