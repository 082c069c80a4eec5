import Foundation

/// The protection contract ("What counts" in the LaunchProtection documentation, and the
/// organizer's documented behaviour) as a pure value: state, and a step function predicting what a launch must show.
package struct ContractModel: Sendable, Equatable {
  /// The persisted consecutive-crash count.
  package var count = 0
  /// The persisted attempted protect level (nil: none).
  package var attemptedLevel: Int?
  /// Unfinished launches whose sentinels are left on disk for the next launch to count.
  package var pendingDead = 0
  /// The pending launches were processes started at once: siblings may already have counted
  /// some of them on disk, so what is persisted lies between `count` and `count + pendingDead`
  /// until the next launch counts the rest.
  package var pendingShared = false

  /// The previous launch died before finishing in a way that counts (its sentinel is left).
  package var deadSentinel: Bool { pendingDead > 0 }

  /// A fresh state directory.
  package init() {}

  /// The level the organizer picks for `count` (ProtectionPolicy: threshold or escalation;
  /// a launch that died while attempting level N moves to N + 1).
  static func level(_ app: ExplorationApp, count: Int, previousAttempt: Int?) -> Int? {
    if let protectsAt = app.customProtectsAt {
      // The closure decides; a `true` answer escalates 1, 2, 3... while repairs keep dying.
      let sampled = min(count, PolicyFacts.lastSampledCount)
      guard protectsAt.contains(sampled) else { return nil }
      return (previousAttempt ?? 0) + 1
    }
    if app.levels.isEmpty {
      guard count >= max(1, app.threshold) else { return nil }
      return 1
    }
    let levels = app.levels.sorted { $0.at < $1.at }.enumerated().map {
      (number: $0.offset + 1, at: max(1, $0.element.at))
    }
    guard let byCount = levels.last(where: { count >= $0.at }) else { return nil }
    guard let previousAttempt, let last = levels.last else { return byCount.number }
    let escalated = levels.first { $0.number == previousAttempt + 1 } ?? last
    return max(escalated.number, byCount.number)
  }

  /// Where a failpoint fires: during the launch (normal launch or relaunch), in the repair,
  /// or after the launch finished (life actions).
  enum Place { case launch, repairStart, repairFinish, afterLaunch }

  /// Where `step`'s fault at `point` fires: where it was seen to, else where the target declares it.
  static func place(of point: String, in step: ExplorationStep, app: ExplorationApp) -> Place {
    step.firedAfterLaunch ? .afterLaunch : place(of: point, in: app)
  }

  static func place(of point: String, in app: ExplorationApp) -> Place {
    switch point {
    case "protect.begin": .repairStart
    case "protect.finish": .repairFinish
    case _ where point.hasPrefix("life."): .afterLaunch
    default:
      // A target's own points, where its listing says they fire (protocol 2).
      switch app.pointPhases[point] {
      case "repair": .repairStart
      case "after_launch": .afterLaunch
      default: .launch
      }
    }
  }

  /// Applies `step` and returns what it must show.
  /// Whether the launch that died while attempting `previousAttempt` used the ladder's last level.
  static func exhausted(_ app: ExplorationApp, previousAttempt: Int?) -> Bool {
    guard app.customProtectsAt == nil, let previousAttempt else { return false }
    return previousAttempt >= max(1, app.levels.count)
  }

  /// Predicts what one launch must show, and advances the model's state past it.
  package mutating func step(_ step: ExplorationStep, app: ExplorationApp) -> Prediction {
    switch step.edit {
    case .reboot:
      if app.ignoresReboots {
        pendingDead = 0
        pendingShared = false
      }
    case .newBinary: break  // applied after counting, below
    case .corruptState, .truncatedState: self = ContractModel()
    case .reusedPid, nil: break
    }
    if step.processes > 1 { return sharedLaunch(step, app: app) }
    let onDisk = self
    var (prediction, finished) = launch(step, app: app)
    if step.action == .storageError, !finished {
      // Its first write (the decision and its sentinel) failed and it ended unfinished: what is
      // on disk is what was there before it, a pending dead launch included, which the next
      // launch counts (once).
      self = onDisk
      prediction.stateCount = count
      prediction.attemptedLevel = attemptedLevel ?? 0
    }
    return prediction
  }

  /// The launch itself, from the state on disk: what it shows, and whether it finished.
  private mutating func launch(_ step: ExplorationStep, app: ExplorationApp) -> (Prediction, finished: Bool) {
    // 1. Count the unfinished launch the previous process left.
    var previousAttempt: Int?
    if pendingDead > 0 {
      count += pendingDead
      previousAttempt = attemptedLevel
    }
    pendingDead = 0
    pendingShared = false
    if step.edit == .newBinary, app.resetsOnNewBinary {
      count = 0
      attemptedLevel = nil
      previousAttempt = nil
    }
    // 2. Decide the mode; the attempted level is persisted before the repair.
    let level = Self.level(app, count: count, previousAttempt: previousAttempt)
    if let level { attemptedLevel = level }
    let sentinelWritten = step.action != .storageError
    var prediction = Prediction(
      outcome: .finished, signal: nil, exitCode: nil, count: count, mode: level == nil ? .normal : .protect,
      level: level, relaunched: false, stateCount: count, attemptedLevel: attemptedLevel ?? 0, fired: nil)
    if level != nil, let status = app.exhaustedExitStatus, Self.exhausted(app, previousAttempt: previousAttempt) {
      // Every level failed: the process exits with the declared status before any repair or
      // launch code, and the next launch counts it (a non-zero exit).
      prediction.outcome = .exit
      prediction.exitCode = status
      prediction.mode = .protect
      pendingDead = sentinelWritten ? 1 : 0
      return (prediction, false)
    }

    // 3. Run: where does the injected fault fire?
    let protect = level != nil
    var point: String?
    var kind: FaultKind?
    var terminated = false
    // A fault whose failpoint the run showed did not fire is a launch without it.
    switch step.reached ? step.action : .clean {
    case .fault(let at, let fault):
      // A return(errno) only fails tasks; elsewhere it is not a fault.
      if fault != .ioError || at.hasPrefix("task.") {
        point = at
        kind = fault
      }
    case .sigterm(let at):
      point = at
      terminated = true
    case .clean, .storageError:
      break
    }
    func fires(_ place: Place) -> Bool { point.map { Self.place(of: $0, in: step, app: app) == place } ?? false }

    var died = false
    if protect {
      if fires(.repairStart) || (app.protectFinishes && fires(.repairFinish)) {
        died = true
      } else if !app.protectFinishes {
        // The launch stays held; the process exits 0 before finishing: not counted.
        prediction.outcome = .exit
        prediction.exitCode = 0
        prediction.stateCount = count
        prediction.attemptedLevel = attemptedLevel ?? 0
        return (prediction, false)
      } else {
        prediction.relaunched = true
        died = fires(.launch)
      }
    } else {
      died = fires(.launch)
    }
    if died, let point {
      prediction.fired = point
      if terminated {
        prediction.outcome = .crash
        prediction.signal = SIGTERM
        if !app.ignoresTermination { pendingDead = sentinelWritten ? 1 : 0 }
        return (prediction, false)
      }
      var end = Self.end(of: kind!, at: point, app: app)
      if kind == .hang, app.deadlineSeconds != nil { end = (.crash, SIGABRT, nil) }  // the launch deadline ends it
      prediction.outcome = end.outcome
      prediction.signal = end.signal
      prediction.exitCode = end.exitCode
      pendingDead = kind!.counts && sentinelWritten ? 1 : 0
      return (prediction, false)
    }
    // 4. The launch finished; a fault in a life action comes after it and is never counted.
    count = 0
    attemptedLevel = nil
    prediction.stateCount = 0
    prediction.attemptedLevel = 0
    if fires(.afterLaunch), let point, Self.evaluations(of: point, protect: protect, app: app) > step.skip {
      prediction.fired = point
      if terminated {
        prediction.outcome = .crash
        prediction.signal = SIGTERM
      } else if kind != .exitZero {
        // exit(0) after launching_finished is simply a finished launch.
        let end = Self.end(of: kind!, at: point, app: app)
        prediction.outcome = end.outcome
        prediction.signal = end.signal
        prediction.exitCode = end.exitCode
      }
    }
    return (prediction, true)
  }
}

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
    if mode == .protect, app.lifeActionsHeld {
      var performed: [String] = []
      for key in app.lifeActions where !performed.contains(key) { performed.append(key) }
      return (
        app.lifeActions.map { event($0, "protected") } + [finished] + performed.map { event($0, "performed") },
        [EventPattern(name: "life_action", fields: ["mode": .string("ran")])]
      )
    }
    guard mode == .normal || prediction.relaunched == true else { return nil }
    return (
      [finished] + app.lifeActions.map { event($0, "ran") },
      [
        EventPattern(name: "life_action", fields: ["mode": .string("held")]),
        EventPattern(name: "life_action", fields: ["mode": .string("protected")]),
      ]
    )
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
      return neverProtects(at: 0...base, app: app) || (app.protectFinishes && app.exhaustedExitStatus == nil)
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

/// Limits of what a target declares (Docs/Protocol.md, protocol 2).
enum PolicyFacts {
  /// A custom policy's closure is sampled at counts 0...64.
  static let lastSampledCount = 64
}
