// What `chaos explore` keeps for its report besides the totals: each sequence's verdict, each
// shrinking step, and the model's prediction beside what happened at the divergent launch.

/// One generated sequence's verdict.
package struct SequenceVerdict: Codable, Sendable, Equatable {
  /// The sequence's index in the run (sequence i uses seed (seed, i)).
  package var index: Int
  /// Its own seed.
  package var seed: UInt64
  /// Its launches, as `ExplorationSequence.summary` writes them.
  package var summary: String
  /// How many launches it has.
  package var launches: Int
  /// How many processes ran (a failing sequence stops early; a launch may run several).
  package var processes: Int
  /// Whether the target did what the model predicted at every launch that ran.
  package var passed: Bool
  /// The first difference, when it did not.
  package var difference: String?
  /// Wall time, seconds.
  package var seconds: Double
}

/// One candidate the shrinker tried.
package struct ShrinkStep: Codable, Sendable, Equatable {
  /// 1-based attempt.
  package var attempt: Int
  /// The candidate's launches (`ExplorationSequence.summary`).
  package var summary: String
  /// How many launches it has.
  package var launches: Int
  /// Whether it failed the same way, so the shrinker kept it.
  package var kept: Bool
  /// How it ended otherwise: `passed`, or the other failure's first difference.
  package var verdict: String
}

/// One predicted field of the divergent launch beside what the target did.
package struct PredictionComparison: Codable, Sendable, Equatable {
  /// `outcome`, `count`, `mode`…
  package var field: String
  /// What the contract model predicted.
  package var predicted: String
  /// What the processes of that launch showed (one value per process), `—` when not observed.
  package var observed: String
  /// Whether they agree (false also when the checker named this field).
  package var agrees: Bool
}

extension ExplorationSequence {
  /// The sequence in a line: its configuration, then each launch (`task.network=segv`,
  /// `SIGTERM at launch.begin`, `×3` for processes at once, a state edit before it).
  package var summary: String {
    var configuration =
      app.levels.isEmpty
      ? "threshold \(app.threshold)" : "levels " + app.levels.map { "\($0.name)@\($0.at)" }.joined(separator: ",")
    if app.customProtectsAt != nil { configuration = "custom policy" }
    if !app.protectFinishes { configuration += ", repair never finishes" }
    if let deadline = app.deadlineSeconds { configuration += ", deadline \(deadline) s" }
    let launches = steps.map { step -> String in
      var text: String
      switch step.action {
      case .clean: text = "clean"
      case .fault(let point, let kind): text = "\(point)=\(step.skip > 0 ? "\(step.skip)*off->" : "")\(kind.rawValue)"
      case .sigterm(let point): text = "SIGTERM at \(point)"
      case .storageError: text = "store.write EIO"
      }
      if let edit = step.edit { text = "\(edit.rawValue), " + text }
      if step.processes > 1 { text += " ×\(step.processes)" }
      return text
    }
    return "[\(configuration)] " + launches.joined(separator: " · ")
  }
}

extension PredictionComparison {
  /// The prediction for a launch beside the processes that ran it; `failures` are the checker's
  /// messages for them (a field they name disagrees even where the recorded values cannot show it).
  static func compare(_ prediction: Prediction, _ processes: [ProcessResult]) -> [PredictionComparison] {
    let failed = Set(processes.flatMap(\.failures).map(\.kind))
    func row(_ kind: ScenarioFailure.Kind, _ predicted: String?, _ observed: (ProcessResult) -> String?)
      -> PredictionComparison?
    {
      let field = kind.rawValue
      guard let predicted else { return nil }
      let seen = processes.map { observed($0) ?? "—" }
      let text = Set(seen).count == 1 ? seen[0] : seen.joined(separator: ", ")
      let named = failed.contains(kind)
      return PredictionComparison(
        field: field, predicted: predicted, observed: text,
        agrees: !named && (seen.allSatisfy { $0 == predicted } || seen.allSatisfy { $0 == "—" }))
    }
    let launchEvent = { (process: ProcessResult) in process.timeline?.events.first { $0.event == "launch" } }
    return [
      row(.outcome, prediction.outcome.rawValue) { $0.outcome?.rawValue },
      row(.signal, prediction.signal.map(Signals.name)) { process in
        if case .signaled(let signal) = process.end, process.outcome == .crash { return Signals.name(signal) }
        return nil
      },
      row(.exitCode, prediction.exitCode.map(String.init)) { process in
        if case .exited(let code) = process.end { return String(code) }
        return nil
      },
      row(.count, prediction.count.map(String.init)) { $0.count.map(String.init) },
      row(.mode, prediction.mode?.rawValue) { $0.mode?.rawValue },
      row(.level, prediction.level.map(String.init)) { launchEvent($0)?.text("level") },
      row(.relaunched, prediction.relaunched.map(String.init)) { String($0.relaunched) },
      row(.stateCount, prediction.stateCount.map(String.init)) { _ in nil },
      row(.stateAttemptedLevel, prediction.attemptedLevel.map(String.init)) { _ in nil },
      row(.stateLaunchesInProgress, prediction.launchesInProgress.map(String.init)) { _ in nil },
      row(.stateLastUncountedExit, prediction.lastUncountedExit) { _ in nil },
    ].compactMap { $0 }
  }
}
