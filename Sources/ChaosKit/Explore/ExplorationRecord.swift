// What `chaos explore` keeps for its report besides the totals: each sequence's verdict, each
// shrinking step, and the model's prediction beside what happened at the divergent launch.

/// One generated sequence's verdict.
public struct SequenceVerdict: Codable, Sendable, Equatable {
  /// The sequence's index in the run (sequence i uses seed (seed, i)).
  public var index: Int
  /// Its own seed.
  public var seed: UInt64
  /// Its launches, as `ExplorationSequence.summary` writes them.
  public var summary: String
  /// How many launches it has.
  public var launches: Int
  /// How many processes ran (a failing sequence stops early; a launch may run several).
  public var processes: Int
  /// Whether the target did what the model predicted at every launch that ran.
  public var passed: Bool
  /// The first difference, when it did not.
  public var difference: String?
  /// Wall time, seconds.
  public var seconds: Double
}

/// One candidate the shrinker tried.
public struct ShrinkStep: Codable, Sendable, Equatable {
  /// 1-based attempt.
  public var attempt: Int
  /// The candidate's launches (`ExplorationSequence.summary`).
  public var summary: String
  /// How many launches it has.
  public var launches: Int
  /// Whether it failed the same way, so the shrinker kept it.
  public var kept: Bool
  /// How it ended otherwise: `passed`, or the other failure's first difference.
  public var verdict: String
}

/// One predicted field of the divergent launch beside what the target did.
public struct PredictionComparison: Codable, Sendable, Equatable {
  /// `outcome`, `count`, `mode`…
  public var field: String
  /// What the contract model predicted.
  public var predicted: String
  /// What the processes of that launch showed (one value per process), `—` when not observed.
  public var observed: String
  /// Whether they agree (false also when the checker named this field).
  public var agrees: Bool
}

extension ExplorationSequence {
  /// The sequence in a line: its configuration, then each launch (`task.network=segv`,
  /// `SIGTERM at launch.begin`, `×3` for processes at once, a state edit before it).
  public var summary: String {
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
    let failures = processes.flatMap(\.failures).joined(separator: "\n")
    func row(_ field: String, _ predicted: String?, _ observed: (ProcessResult) -> String?) -> PredictionComparison? {
      guard let predicted else { return nil }
      let seen = processes.map { observed($0) ?? "—" }
      let text = Set(seen).count == 1 ? seen[0] : seen.joined(separator: ", ")
      let named = failures.contains("expected \(field) ") || failures.contains("expected \(field):")
      return PredictionComparison(
        field: field, predicted: predicted, observed: text,
        agrees: !named && (seen.allSatisfy { $0 == predicted } || seen.allSatisfy { $0 == "—" }))
    }
    let launchEvent = { (process: ProcessResult) in process.timeline?.events.first { $0.event == "launch" } }
    return [
      row("outcome", prediction.outcome.rawValue) { $0.outcome },
      row("signal", prediction.signal.map(Signals.name)) { $0.outcome == "crash" ? $0.end : nil },
      row("exit_code", prediction.exitCode.map(String.init)) { process in
        process.end.hasPrefix("exit(") ? String(process.end.dropFirst(5).dropLast()) : nil
      },
      row("count", prediction.count.map(String.init)) { $0.count.map(String.init) },
      row("mode", prediction.mode) { $0.mode },
      row("level", prediction.level.map(String.init)) { launchEvent($0)?.text("level") },
      row("relaunched", prediction.relaunched.map(String.init)) { String($0.relaunched) },
      row("state.count", prediction.stateCount.map(String.init)) { _ in nil },
      row("state.attempted_level", prediction.attemptedLevel.map(String.init)) { _ in nil },
    ].compactMap { $0 }
  }
}
