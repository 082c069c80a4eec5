/// Readable one-line descriptions of the events, for logs (`"\(event)"`).
extension LaunchProtectionEvent: CustomStringConvertible {
  public var description: String {
    let level = self.level.map { "\($0.number) (\($0.name))" } ?? "?"
    switch kind.known {
    case .launch: return decision?.description ?? "launch"
    case .protectEnter:
      return "protect mode: repair level \(level) after \(count ?? 0) consecutive launch crashes"
    case .protectFinish: return "repair level \(level) finished"
    case .relaunch: return "relaunching in this process after the repair"
    case .launchingFinished: return "launch finished; crash count reset to 0"
    case .lifeAction: return "life action \(lifeActionKey ?? "?"): \(lifeActionOutcome?.rawValue ?? "?")"
    case .stateProblem: return "state problem: \(stateProblem.map { "\($0)" } ?? "?")"
    case .exceptionRecorded:
      guard let cause else { return "recorded an exception" }
      return "recorded \(cause.type)\(cause.afterLaunch ? " after the launch (not counted)" : " during the launch")"
    case .uncountedExit:
      return "launch ended before finishing (\(uncountedReason?.rawValue ?? "?")); not counted"
    case .launchDeadlineExceeded:
      return
        "the \(phase?.step ?? "launch") ran past its \(deadline.map { "\($0)" } ?? "?") deadline; aborting (the next launch counts it)"
    case .stopRequested: return "stop requested during the launch; this launch will not be counted"
    case .levelsExhausted:
      let last = self.level.map { "\($0.number) \($0.name)" } ?? "?"
      return
        "every repair level failed (last: \(last)) after \(count ?? 0) launch crashes; \(exhaustedAction.map { "\($0)" } ?? "?")"
    case .privateStateDirectory:
      return "state kept in \(stateDirectory ?? "?"), this user's own: \(stateDirectoryReason ?? "?")"
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
    for launch in ignored { parts.append("ignored pid \(launch.record.process.pid) (\(launch.reason.rawValue))") }
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
