import Foundation

/// A fault `chaos explore` injects at a failpoint.
public enum FaultKind: String, CaseIterable, Sendable, Codable {
  case segv, bus, fpe, abort, trap, fatal, unwrap, overflow, oob, stackoverflow, kill, hang
  case exitNonzero = "exit(3)"
  case exitZero = "exit(0)"
  case threadSegv = "thread(segv)"
  case ioError = "return(EIO)"

  /// How the process ends when this fault fires.
  var end: (outcome: Outcome, signal: Int32?, exitCode: Int32?) {
    switch self {
    case .segv, .stackoverflow, .threadSegv: (.crash, SIGSEGV, nil)
    case .bus: (.crash, SIGBUS, nil)
    case .fpe: (.crash, SIGFPE, nil)
    case .abort: (.crash, SIGABRT, nil)
    case .trap: (.crash, SIGTRAP, nil)
    case .fatal, .unwrap, .overflow, .oob: (.crash, SIGILL, nil)
    case .kill: (.killed, nil, nil)
    case .hang: (.timeout, nil, nil)
    case .exitNonzero: (.exit, nil, 3)
    case .exitZero: (.exit, nil, 0)
    // A failing task: the reference app exits 4 (a launch whose tasks failed did not finish).
    case .ioError: (.exit, nil, 4)
    }
  }

  /// Whether the next launch counts a launch that died this way before finishing.
  var counts: Bool { self != .exitZero }
}

/// Something done to the state or the binary before a launch.
public enum StateEdit: String, Sendable, Codable, CaseIterable {
  /// The machine "rebooted": the unfinished launch's boot id changes.
  case reboot
  /// A new build of the target.
  case newBinary
  /// Garbage state file.
  case corruptState
  /// A state file cut mid-way.
  case truncatedState
  /// The dead launch's pid now belongs to another live process (a different start time).
  case reusedPid
}

/// What a generated launch does.
public enum LaunchAction: Sendable, Equatable {
  /// Nothing injected.
  case clean
  /// A fault at a failpoint.
  case fault(point: String, kind: FaultKind)
  /// SIGTERM while the launch is held at `point` (a clean shutdown, never counted).
  case sigterm(point: String)
  /// The first durable write of the launch fails with EIO (at `store.write`, a step of every durability mode).
  case storageError
}

/// One generated launch.
public struct ExplorationStep: Sendable, Equatable {
  /// Applied before the launch.
  public var edit: StateEdit?
  /// What happens in it.
  public var action: LaunchAction

  /// A launch.
  public init(edit: StateEdit?, action: LaunchAction) {
    self.edit = edit
    self.action = action
  }
}

/// The protection configuration of a sequence: generated (the reference app's `CHAOS_APP`,
/// for targets that accept it) or declared by the target (protocol 2: the `launch` event's
/// `policy`), in which case nothing is sent and the model predicts from what was declared.
public struct ExplorationApp: Sendable, Equatable {
  /// `threshold` policy, when `levels` is empty.
  public var threshold: Int
  /// Escalation levels: (name, at).
  public var levels: [(name: String, at: Int)]
  /// Whether the repair calls `protectFinished()` (`immediate`) or never does.
  public var protectFinishes: Bool
  /// Life actions the app adds (each gives a `life.<key>` failpoint).
  public var lifeActions: [String]
  /// A custom policy (the seed's `shouldProtect` closure): the counts at which it protects,
  /// sampled by the target (counts past the last sample behave like the last one).
  public var customProtectsAt: [Int]?
  /// The exit status of an exhausted ladder (`whenExhausted(.exit(status:))`); nil: the last level repeats.
  public var exhaustedExitStatus: Int32?
  /// `launchDeadline`: a hang during the launch ends by SIGABRT and counts.
  public var deadlineSeconds: Double?
  /// The filters of the "What counts" table the target keeps.
  public var ignoresTermination = true
  public var ignoresReboots = true
  public var resetsOnNewBinary = true
  /// The target stated this policy (protocol 2) instead of taking it from `CHAOS_APP`.
  public var declared = false
  /// The target stays up after `launching_finished` (a daemon): each launch is stopped with
  /// SIGTERM as a supervisor would, and must exit 0.
  public var daemon = false

  /// A configuration.
  public init(threshold: Int, levels: [(name: String, at: Int)], protectFinishes: Bool, lifeActions: [String]) {
    self.threshold = threshold
    self.levels = levels
    self.protectFinishes = protectFinishes
    self.lifeActions = lifeActions
  }

  public static func == (lhs: ExplorationApp, rhs: ExplorationApp) -> Bool {
    lhs.threshold == rhs.threshold && lhs.levels.map(\.name) == rhs.levels.map(\.name)
      && lhs.levels.map(\.at) == rhs.levels.map(\.at) && lhs.protectFinishes == rhs.protectFinishes
      && lhs.lifeActions == rhs.lifeActions && lhs.customProtectsAt == rhs.customProtectsAt
      && lhs.exhaustedExitStatus == rhs.exhaustedExitStatus && lhs.deadlineSeconds == rhs.deadlineSeconds
      && lhs.ignoresTermination == rhs.ignoresTermination && lhs.ignoresReboots == rhs.ignoresReboots
      && lhs.resetsOnNewBinary == rhs.resetsOnNewBinary && lhs.declared == rhs.declared && lhs.daemon == rhs.daemon
  }

  /// As `CHAOS_APP` fields.
  var json: JSONValue {
    var fields: [String: JSONValue] = [
      "protect_finish": .string(protectFinishes ? "immediate" : "never"),
      "life_actions": .array(lifeActions.map(JSONValue.string)),
    ]
    if let exhaustedExitStatus { fields["exhausted"] = .string("exit(\(exhaustedExitStatus))") }
    if levels.isEmpty {
      fields["threshold"] = .number(Double(threshold))
    } else {
      fields["levels"] = .array(
        levels.map { .object(["name": .string($0.name), "at": .number(Double($0.at))]) })
    }
    return .object(fields)
  }
}

/// What the contract says one launch must show.
public struct Prediction: Sendable, Equatable {
  public var outcome: Outcome
  public var signal: Int32?
  public var exitCode: Int32?
  public var count: Int
  public var mode: String
  public var level: Int?
  public var relaunched: Bool
  /// The persisted count after the launch.
  public var stateCount: Int
  /// The persisted attempted level after the launch (0: none).
  public var attemptedLevel: Int
  /// Where the injected fault fired, if it did (for coverage).
  public var fired: String?
}

/// The protection contract (README "What counts" and the organizer's documented behaviour)
/// as a pure value: state, and a step function predicting what a launch must show.
public struct ContractModel: Sendable, Equatable {
  /// The persisted consecutive-crash count.
  public var count = 0
  /// The persisted attempted protect level (nil: none).
  public var attemptedLevel: Int?
  /// The previous launch died before finishing in a way that counts (its sentinel is left).
  public var deadSentinel = false
  /// The previous launch's sentinel was left by a SIGTERM (a clean shutdown).
  public var terminatedSentinel = false

  /// A fresh state directory.
  public init() {}

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

  static func place(of point: String) -> Place {
    switch point {
    case "protect.begin": .repairStart
    case "protect.finish": .repairFinish
    case _ where point.hasPrefix("life."): .afterLaunch
    default: .launch
    }
  }

  /// Applies `step` and returns what it must show.
  /// Whether the launch that died while attempting `previousAttempt` used the ladder's last level.
  static func exhausted(_ app: ExplorationApp, previousAttempt: Int?) -> Bool {
    guard app.customProtectsAt == nil, let previousAttempt else { return false }
    return previousAttempt >= max(1, app.levels.count)
  }

  public mutating func step(_ step: ExplorationStep, app: ExplorationApp) -> Prediction {
    switch step.edit {
    case .reboot: if app.ignoresReboots { deadSentinel = false }
    case .newBinary: break  // applied after counting, below
    case .corruptState, .truncatedState: self = ContractModel()
    case .reusedPid, nil: break
    }
    // 1. Count the unfinished launch the previous process left.
    var previousAttempt: Int?
    if deadSentinel {
      count += 1
      previousAttempt = attemptedLevel
    }
    deadSentinel = false
    terminatedSentinel = false
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
      outcome: .finished, signal: nil, exitCode: nil, count: count, mode: level == nil ? "normal" : "protect",
      level: level, relaunched: false, stateCount: count, attemptedLevel: attemptedLevel ?? 0, fired: nil)
    if level != nil, let status = app.exhaustedExitStatus, Self.exhausted(app, previousAttempt: previousAttempt) {
      // Every level failed: the process exits with the declared status before any repair or
      // launch code, and the next launch counts it (a non-zero exit).
      prediction.outcome = .exit
      prediction.exitCode = status
      prediction.mode = "protect"
      deadSentinel = sentinelWritten
      return prediction
    }

    // 3. Run: where does the injected fault fire?
    let protect = level != nil
    var point: String?
    var kind: FaultKind?
    var terminated = false
    switch step.action {
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
    func fires(_ place: Place) -> Bool { point.map { Self.place(of: $0) == place } ?? false }

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
        return prediction
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
        if app.ignoresTermination {
          terminatedSentinel = true
        } else {
          deadSentinel = sentinelWritten
        }
        return prediction
      }
      var end = kind!.end
      if kind == .hang, app.deadlineSeconds != nil { end = (.crash, SIGABRT, nil) }  // the launch deadline ends it
      prediction.outcome = end.outcome
      prediction.signal = end.signal
      prediction.exitCode = end.exitCode
      deadSentinel = kind!.counts && sentinelWritten
      return prediction
    }
    // 4. The launch finished; a fault in a life action comes after it and is never counted.
    count = 0
    attemptedLevel = nil
    prediction.stateCount = 0
    prediction.attemptedLevel = 0
    if fires(.afterLaunch), let point {
      prediction.fired = point
      if terminated {
        prediction.outcome = .crash
        prediction.signal = SIGTERM
      } else if kind != .exitZero {
        // exit(0) after launching_finished is simply a finished launch.
        let end = kind!.end
        prediction.outcome = end.outcome
        prediction.signal = end.signal
        prediction.exitCode = end.exitCode
      }
    }
    return prediction
  }
}

/// Limits of what a target declares (Docs/Protocol.md, protocol 2).
enum PolicyFacts {
  /// A custom policy's closure is sampled at counts 0...64.
  static let lastSampledCount = 64
}
