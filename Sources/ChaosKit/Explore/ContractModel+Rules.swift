import Foundation

/// The contract's rules for failpoints, life actions, hangs and shared launches, which the
/// step function and the generator ask.
extension ContractModel {
  /// How often a failpoint that fires after the launch is evaluated in one launch. The
  /// generated app adds its life actions in order, each run at once in normal mode (a key
  /// listed twice runs twice); with `after_life_actions` in protect mode each key is held once
  /// and performed once after the relaunch. A target's own points: once.
  static func evaluations(of point: String, protect: Bool, app: ExplorationApp) -> Int {
    guard !app.declared, point.hasPrefix("life.") else { return 1 }
    let added = app.lifeActions.filter { "life." + $0 == point }.count
    return protect && app.lifeActionsHeld ? min(added, 1) : added
  }

  /// Failpoints the organizer itself evaluates where the contract says (`protect.*` in the
  /// repair, `life.<key>` when a life action runs or is performed). In a generated
  /// configuration the model knows when they run, so one the model predicts to fire must fire:
  /// a run where it did not is a divergence (a held action that should have run), never "not
  /// reached". A declared target's points may sit behind requests or branches: those may not fire.
  package static func mustFire(_ point: String, app: ExplorationApp) -> Bool {
    guard !app.declared else { return false }
    if point == "protect.begin" || point == "protect.finish" { return true }
    return point.hasPrefix("life.") && app.lifeActions.contains { "life." + $0 == point }
  }

  /// What the generated app's life actions must show in a launch predicted to finish with no
  /// fault fired ("What counts" and the organizer's contract, `addLifeAction`): in normal mode,
  /// and after `protectFinished()` (`protect_finish: immediate`), each action runs at once
  /// (`life_action` mode `ran`, once per add); held (`after_life_actions`), each add runs its
  /// protect action and each key is performed once after the relaunch, never run at once.
  /// With the app's second calls (`second_calls`, `secondCallEvents`) each action's own runs
  /// (`life_action_run`) are counted exactly.
  /// Nil: not predicted (a declared target's actions are its own; shared launches' modes are timing).
  package static func lifeActionEvents(_ prediction: Prediction, app: ExplorationApp) -> (
    events: [EventPattern], absent: [EventPattern]
  )? {
    guard !app.declared, !app.daemon, !app.lifeActions.isEmpty, prediction.outcome == .finished,
      prediction.fired == nil, let mode = prediction.mode
    else { return nil }
    func event(_ key: String, _ mode: String) -> EventPattern {
      EventPattern(name: "life_action", fields: ["key": .string(key), "mode": .string(mode)])
    }
    let finished = EventPattern(name: "launching_finished", fields: [:])
    var keys: [String] = []
    for key in app.lifeActions where !keys.contains(key) { keys.append(key) }
    let held = mode == .protect && app.lifeActionsHeld
    if held {
      return (
        app.lifeActions.map { event($0, "protected") } + [finished] + keys.map { event($0, "performed") }
          + secondCallEvents(keys: keys, held: true, app: app),
        [EventPattern(name: "life_action", fields: ["mode": .string("ran")])]
      )
    }
    guard mode == .normal || prediction.relaunched == true else { return nil }
    // The repair's own second `protectFinished()` comes once the relaunch it ran finished.
    let inRepair =
      app.secondCalls && prediction.relaunched == true
      ? [
        EventPattern(
          name: "second_call",
          fields: ["call": .string("protect_finished"), "when": .string("repair"), "result": .bool(false)])
      ] : []
    return (
      [finished] + inRepair + app.lifeActions.map { event($0, "ran") }
        + secondCallEvents(keys: keys, held: false, app: app),
      [
        EventPattern(name: "life_action", fields: ["mode": .string("held")]),
        EventPattern(name: "life_action", fields: ["mode": .string("protected")]),
      ]
    )
  }

  /// The generated app's second calls after the launch (the reference app's `second_calls`),
  /// each as the contract says: `protectFinished()` again returns false (in a repair right after
  /// the first, `lifeActionEvents`, and after the launch); `launchingFinished()` again changes nothing (one
  /// `launching_finished`); `performAction(key:)` again finds nothing held. Counted exactly,
  /// wherever they fall: each key's action ran once per add at once, or once when held and
  /// performed ("an action runs at most once"); a held key was performed once.
  static func secondCallEvents(keys: [String], held: Bool, app: ExplorationApp) -> [EventPattern] {
    guard app.secondCalls else { return [] }
    func call(_ name: String, _ when: String, _ extra: [String: JSONValue] = [:]) -> EventPattern {
      EventPattern(
        name: "second_call", fields: extra.merging(["call": .string(name), "when": .string(when)]) { $1 })
    }
    var events = [call("protect_finished", "after_launch", ["result": .bool(false)])]
    events.append(call("launching_finished", "after_launch"))
    events += keys.map { call("perform_action", "after_launch", ["key": .string($0), "result": .bool(false)]) }
    var counted = [EventPattern(name: "launching_finished", fields: [:], times: 1)]
    for key in keys {
      let adds = app.lifeActions.filter { $0 == key }.count
      counted.append(EventPattern(name: "life_action_run", fields: ["key": .string(key)], times: held ? 1 : adds))
      if held {
        counted.append(
          EventPattern(name: "life_action", fields: ["key": .string(key), "mode": .string("performed")], times: 1))
        counted.append(EventPattern(name: "life_action_protect_run", fields: ["key": .string(key)], times: adds))
      }
    }
    return events + counted
  }

  /// Whether the harness ends a hang at `point` as soon as its failpoint fired (SIGKILL after
  /// the `failpoint` event) instead of at the per-launch watchdog: a hang that nothing but the
  /// watchdog ends shows nothing more by waiting for it ("What counts": a SIGKILL and a
  /// watchdog kill count alike), and the wait was a third of exploring's time. Not where a
  /// launch deadline ends it (during the launch, that is what is checked), nor in a daemon
  /// (its request handlers' points need the workload, which a `send_signal` launch does not make).
  package static func killsHangAtOnce(at point: String, app: ExplorationApp) -> Bool {
    !app.daemon && (app.deadlineSeconds == nil || place(of: point, in: app) == .afterLaunch)
  }

  /// How a process ends when `kind` fires at `point` (a hang: killed at once, or the watchdog).
  static func end(of kind: FaultKind, at point: String, app: ExplorationApp) -> (
    outcome: Outcome, signal: Int32?, exitCode: Int32?
  ) {
    kind == .hang && killsHangAtOnce(at: point, app: app) ? (.killed, nil, nil) : kind.end
  }

  /// Kinds of fault a launch of several processes at once injects: each ends the process at
  /// once and counts, so no process outlives another by a timeout.
  static let sharedFaults: [FaultKind] = [.segv, .abort, .kill, .exitNonzero]

  /// Whether the model predicts `step` without depending on timing (the generator proposes,
  /// and the shrinker keeps, only such steps):
  /// - processes started at once must all die in the launch without any of them reaching
  ///   protect mode, whatever siblings it counted; or all finish;
  /// - after such a crash, which siblings were counted on disk is timing, so the next launch
  ///   may not lose its write (`storageError` would leave that on disk) or be rebooted past it.
  package func admits(_ step: ExplorationStep, app: ExplorationApp) -> Bool {
    if pendingShared, step.edit == .reboot || step.action == .storageError { return false }
    guard step.processes > 1 else { return true }
    guard !app.daemon, step.edit == nil, step.skip == 0 else { return false }
    let base = count + pendingDead
    switch step.action {
    case .fault(let point, let kind):
      return Self.place(of: point, in: app) == .launch && Self.sharedFaults.contains(kind)
        && neverProtects(at: base...(base + step.processes - 1), app: app)
    case .clean:
      return neverProtects(at: 0...base, app: app)
        || (app.protectFinishes && app.exhaustedExitStatus == nil && !app.staysDegraded)
    case .sigterm, .storageError:
      return false
    }
  }

  /// `processes` started at once on one state directory. Each decides under the store's lock:
  /// the first counts what the previous launch left; a sibling that died before another
  /// decided is counted by that one, the rest by the next launch. Which is timing, the sum is
  /// not: every process that died is counted exactly once ("What counts": a launch of a
  /// process still running is not counted).
  mutating func sharedLaunch(_ step: ExplorationStep, app: ExplorationApp) -> Prediction {
    // An admitted shared crash never protects; a shared clean launch may, from any count it can see.
    let canProtect: Bool
    if case .fault = step.action {
      canProtect = false
    } else {
      canProtect = !neverProtects(at: 0...(count + pendingDead), app: app)
    }
    count += pendingDead
    pendingDead = 0
    pendingShared = false
    var prediction = Prediction(
      outcome: .finished, signal: nil, exitCode: nil, count: nil, mode: canProtect ? nil : .normal, level: nil,
      relaunched: canProtect ? nil : false, stateCount: nil, attemptedLevel: nil, fired: nil)
    if case .fault(let point, let kind) = step.action {
      let end = kind.end
      prediction.outcome = end.outcome
      prediction.signal = end.signal
      prediction.exitCode = end.exitCode
      prediction.fired = point
      pendingDead = step.processes
      pendingShared = true
    } else {
      // All finished: whoever finished last wrote count 0 and no attempted level.
      count = 0
      attemptedLevel = nil
      prediction.stateCount = 0
      prediction.attemptedLevel = 0
    }
    return prediction
  }

  /// Whether a launch seeing any of `counts` (and this state's attempted level) runs in normal mode.
  private func neverProtects(at counts: ClosedRange<Int>, app: ExplorationApp) -> Bool {
    counts.allSatisfy { Self.level(app, count: $0, previousAttempt: attemptedLevel) == nil }
  }
}
