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
  /// The records the state's `launchesInProgress` holds (nil: timing decides, after processes
  /// started at once died): what the last launch left, never what an earlier one resolved.
  package var records: Int? = 0
  /// The record left is a launch stopped by a request (SIGTERM) before it finished.
  package var stopped = false
  /// The state's `lastUncountedExit`: why the last unfinished launch that was not counted was not.
  package var lastUncounted: UncountedTrace = .none

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
    let rebooted = step.edit == .reboot && (records ?? 0) > 0
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
    let onDisk = self
    decideRecords(rebooted: rebooted, app: app)
    if step.processes > 1 {
      var prediction = sharedLaunch(step, app: app)
      leaveRecords(after: step, finished: prediction.outcome == .finished, &prediction, app: app)
      return prediction
    }
    var (prediction, finished) = launch(step, app: app)
    leaveRecords(after: step, finished: finished, &prediction, app: app)
    if step.action == .storageError {
      if !finished {
        // Its first write (the decision and its sentinel) failed and it ended unfinished: what is
        // on disk is what was there before it, a pending dead launch included, which the next
        // launch counts (once).
        let exitedCleanly = prediction.outcome == .exit && prediction.exitCode == 0
        self = onDisk
        prediction.stateCount = count
        prediction.attemptedLevel = attemptedLevel ?? 0
        // A clean exit is written after it (the failure was the first write only).
        if exitedCleanly { lastUncounted = .cleanExit }
      } else {
        // Its end was written; the decision's reason for what it did not count was not.
        lastUncounted = onDisk.lastUncounted
      }
      prediction.launchesInProgress = records
      prediction.lastUncountedExit = lastUncounted.reason
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
    prediction.exhausted = level != nil && Self.exhausted(app, previousAttempt: previousAttempt)
    if level != nil, let status = app.exhaustedExitStatus, Self.exhausted(app, previousAttempt: previousAttempt) {
      // Every level failed: the process exits with the declared status before any repair or
      // launch code, and the next launch counts it (a non-zero exit).
      prediction.outcome = .exit
      prediction.exitCode = status
      prediction.mode = .protect
      pendingDead = sentinelWritten ? 1 : 0
      return (prediction, false)
    }

    // Every level failed and the policy stays degraded: the repair runs (its failpoints fire,
    // `protectFinished()` evaluates `protect.finish` before refusing), no deadline applies, and
    // the held launch never runs.
    let degraded = level != nil && app.staysDegraded && Self.exhausted(app, previousAttempt: previousAttempt)

    // 3. Run: where does the injected fault fire?
    let protect = level != nil
    var point: String?
    var kind: FaultKind?
    var terminated = false
    // A fault whose failpoint the run showed did not fire is a launch without it.
    switch step.reached ? step.judgedAction : .clean {
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
      } else if !app.protectFinishes || degraded {
        // The launch stays held (never released, or refused when degraded); the process
        // exits 0 before finishing: not counted.
        prediction.degraded = degraded
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
      // The launch deadline ends a hang, except in a degraded launch, which has none.
      if kind == .hang, app.deadlineSeconds != nil, !degraded { end = (.crash, SIGABRT, nil) }
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

/// Limits of what a target declares (Docs/Protocol.md, protocol 2).
enum PolicyFacts {
  /// A custom policy's closure is sampled at counts 0...64.
  static let lastSampledCount = 64
}
