import Foundation

/// A row of "The rules it checks" (Explore.md): a rule of "What counts" that a generated crash
/// loop reaches. The report says, per rule, how many launches reached it, and why none did
/// where none did, so "the rule holds" is told apart from "the rule was never tried".
package enum ContractRule: String, CaseIterable, Sendable {
  /// A crash, SIGKILL, watchdog kill or `exit(n ≠ 0)` before `launchingFinished()` counts once; `exit(0)` does not.
  case deathBeforeFinish = "death before finishing counts once"
  /// A launch, repair or relaunch still running at the deadline counts.
  case deadline = "hang ended by the deadline"
  /// Exhausted levels: the last level repeats, the app exits with a status, or stays degraded.
  case exhaustedLevels = "exhausted levels"
  /// A stop before `launchingFinished()` is not counted.
  case stop = "stop not counted"
  /// A reboot since the unfinished launch is not counted.
  case reboot = "reboot not counted"
  /// A new executable resets the count.
  case newBinary = "new binary resets"
  /// A crash after `launchingFinished()` is never counted.
  case crashAfterFinish = "crash after finishing"
  /// A crash in protect mode or after `protectFinished()` counts and escalates.
  case crashInProtect = "crash in repair or relaunch"
  /// Life actions run at once, or held and performed once; each second call finds nothing.
  case lifeActions = "life actions and second calls"
  /// An unfinished launch of a process still running is not counted.
  case liveProcess = "live process not counted"
  /// A failed first write leaves what was on disk.
  case failedWrite = "failed first write"

  /// The rules `step` reached, judged from the model before it and its prediction.
  static func reached(
    by step: ExplorationStep, before: ContractModel, prediction: Prediction, app: ExplorationApp
  ) -> [ContractRule] {
    var rules: [ContractRule] = []
    let place = prediction.fired.map { ContractModel.place(of: $0, in: step, app: app) }
    let diedInLaunch = prediction.fired != nil && place != .afterLaunch
    var kind: FaultKind?
    if case .fault(_, let fault) = step.judgedAction { kind = fault }
    if diedInLaunch, kind != nil { rules.append(.deathBeforeFinish) }
    if diedInLaunch, kind == .hang, app.deadlineSeconds != nil, prediction.signal == SIGABRT { rules.append(.deadline) }
    let previousAttempt = before.pendingDead > 0 ? before.attemptedLevel : nil
    if prediction.mode == .protect, step.edit != .newBinary,
      ContractModel.exhausted(app, previousAttempt: previousAttempt)
    {
      rules.append(.exhaustedLevels)
    }
    if case .sigterm = step.judgedAction, diedInLaunch { rules.append(.stop) }
    if step.edit == .reboot, before.deadSentinel { rules.append(.reboot) }
    if step.edit == .newBinary, before.count + before.pendingDead > 0 { rules.append(.newBinary) }
    if prediction.fired != nil, place == .afterLaunch, prediction.outcome != .finished {
      rules.append(.crashAfterFinish)
    }
    if diedInLaunch, prediction.mode == .protect { rules.append(.crashInProtect) }
    if ContractModel.lifeActionEvents(prediction, app: app) != nil { rules.append(.lifeActions) }
    if step.processes > 1 || (step.edit == .reusedPid && before.deadSentinel) { rules.append(.liveProcess) }
    if step.action == .storageError { rules.append(.failedWrite) }
    return rules
  }

  /// Why no launch reached this rule in a run of `sequences` sequences over what `generator` proposes.
  package func whyNone(generator: SequenceGenerator, sequences: Int) -> String {
    let declared = generator.declaredApp
    let points = generator.points + generator.lifePoints
    let repairPoints = points.filter { $0.hasPrefix("protect.") || declared?.pointPhases[$0] == "repair" }
    let relaunches = declared?.protectFinishes ?? true
    let longer = "in \(sequences) sequences: explore longer"
    if points.isEmpty, self != .reboot, self != .newBinary, self != .failedWrite, self != .liveProcess {
      return "the target lists no failpoint, so no fault or stop was injected"
    }
    switch self {
    case .deadline:
      if let declared, declared.deadlineSeconds == nil { return "the target declares no launch deadline" }
      return "no hang during a launch with a deadline \(longer)"
    case .exhaustedLevels, .crashInProtect:
      if declared?.customProtectsAt != nil, self == .exhaustedLevels {
        return "a custom shouldProtect closure has no last level: one more each time a repair dies"
      }
      if repairPoints.isEmpty, !relaunches {
        return "no failpoint in the repair and no relaunch after it: a repair that dies was never generated"
      }
      return "no repair or relaunch that died \(longer)"
    case .crashAfterFinish:
      let after = points.filter { $0.hasPrefix("life.") || declared?.pointPhases[$0] == "after_launch" }
      if after.isEmpty {
        return
          "no failpoint fires after launching_finished (declare one with phase .afterLaunch, or a --workload that reaches a request handler)"
      }
      return "no fault fired after a launch \(longer)"
    case .lifeActions:
      if declared != nil { return "a declared app's life actions are its own: the model does not judge them" }
      return "no launch that finished without a fault \(longer)"
    case .liveProcess:
      if declared?.daemon == true {
        return "a daemon gets no launches of several processes at once, and no reused pid after a death was drawn"
      }
      return "no shared launch or reused pid \(longer)"
    case .reboot, .stop, .newBinary, .failedWrite, .deathBeforeFinish:
      return "none drawn \(longer)"
    }
  }
}

extension Explorer.Report {
  /// One rule of Explore.md's table: how many launches reached it, and why none did.
  public struct RuleReach: Encodable, Sendable {
    /// The rule, as the report names it.
    public var rule: String
    /// Launches that reached it.
    public var launches: Int
    /// Why no launch did (nil when some did).
    public var whyNone: String?
  }
}
