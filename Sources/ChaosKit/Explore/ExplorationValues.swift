import Foundation

/// A fault `chaos explore` injects at a failpoint.
package enum FaultKind: String, CaseIterable, Sendable, Codable {
  /// The failpoint action of the same name: the process ends by its signal (`segv`, `bus`, `fpe`,
  /// `abort`, `trap`; `fatal`, `unwrap`, `overflow` and `oob` are Swift traps; `stackoverflow`
  /// ends by SIGSEGV, `kill` by SIGKILL, which no handler sees), or, for `hang`, by the watchdog
  /// or the launch deadline.
  case segv, bus, fpe, abort, trap, fatal, unwrap, overflow, oob, stackoverflow, kill, hang
  /// `exit(3)`: an unclean exit, counted during the launch.
  case exitNonzero = "exit(3)"
  /// `exit(0)`: a clean exit, not counted.
  case exitZero = "exit(0)"
  /// `thread(segv)`: SIGSEGV on a thread of its own.
  case threadSegv = "thread(segv)"
  /// `return(EIO)`: an I/O failpoint fails with EIO (a no-op elsewhere).
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
package enum StateEdit: String, Sendable, Codable, CaseIterable {
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
package enum LaunchAction: Sendable, Equatable {
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
package struct ExplorationStep: Sendable, Equatable {
  /// Applied before the launch.
  package var edit: StateEdit?
  /// What happens in it.
  package var action: LaunchAction
  /// Times the fault's failpoint passes before it fires (`N*off->fault`): a life action that
  /// runs twice fails the second time.
  package var skip: Int
  /// Processes started at once on the same state directory (`parallel:`).
  package var processes: Int
  /// Times the launch runs in a row (`repeat:`), each predicted alike: only set on a launch
  /// that leaves the model's state as it found it (`ExplorationSequence.repeated`), so the
  /// model steps it once.
  package var repeatCount = 1
  /// Its failpoint was seen to fire after `launching_finished` (a request handler declared
  /// with the default phase): the model predicts it as a fault after the launch.
  var firedAfterLaunch = false
  /// False once the run showed its failpoint never fired: the model predicts the launch as one
  /// without the fault, which is still injected (the written scenario runs what ran).
  var reached = true
  /// True once the run showed that its SIGTERM reached the process where the organizer could
  /// not see it: before the organizer adopted a signal owner made during the launch (the
  /// window LaunchProtection documents), or after the launch deadline had already fired. The
  /// launch is then what it was without the stop: held at its failpoint, a hang.
  var stopUnseen = false

  /// What the model predicts the launch as: its action, or a hang at the failpoint for a stop
  /// the organizer could not see (``stopUnseen``).
  var judgedAction: LaunchAction {
    if stopUnseen, case .sigterm(let point) = action { return .fault(point: point, kind: .hang) }
    return action
  }

  /// The failpoint its fault or stop is injected at, if any.
  var injectedPoint: String? {
    switch action {
    case .fault(let point, _), .sigterm(let point): point
    case .clean, .storageError: nil
    }
  }

  /// A launch.
  package init(edit: StateEdit?, action: LaunchAction, skip: Int = 0, processes: Int = 1) {
    self.edit = edit
    self.action = action
    self.skip = skip
    self.processes = processes
  }
}

/// The protection configuration of a sequence: generated (the reference app's `CHAOS_APP`,
/// for targets that accept it) or declared by the target (protocol 2: the `launch` event's
/// `policy`), in which case nothing is sent and the model predicts from what was declared.
package struct ExplorationApp: Sendable, Equatable {
  /// `threshold` policy, when `levels` is empty.
  package var threshold: Int
  /// Escalation levels: (name, at).
  package var levels: [(name: String, at: Int)]
  /// Whether the repair calls `protectFinished()` (`immediate`) or never does.
  package var protectFinishes: Bool
  /// `protect_finish: after_life_actions`: in protect mode the life actions are held, the
  /// launch is relaunched after they were added, and each held action is performed once.
  package var lifeActionsHeld = false
  /// Life actions the app adds (each gives a `life.<key>` failpoint).
  package var lifeActions: [String]
  /// A custom policy (a `shouldProtect` closure): the counts at which it protects,
  /// sampled by the target (counts past the last sample behave like the last one).
  package var customProtectsAt: [Int]?
  /// The exit status of an exhausted ladder (`whenExhausted(.exit(status:))`); nil: the last level repeats.
  package var exhaustedExitStatus: Int32?
  /// `whenExhausted(.stayDegraded)`: once every level failed, the repair runs marked
  /// exhausted, `protectFinished()` is refused (no relaunch, no launch) and no deadline
  /// applies; the process's clean exit from there is not counted.
  package var staysDegraded = false
  /// `launchDeadline`: a hang during the launch ends by SIGABRT and counts.
  package var deadlineSeconds: Double?
  /// The filters of the "What counts" table the target keeps: a stop request is not counted.
  package var ignoresTermination = true
  /// A launch that died before a reboot is not counted.
  package var ignoresReboots = true
  /// A new executable resets the count.
  package var resetsOnNewBinary = true
  /// The target stated this policy (protocol 2) instead of taking it from `CHAOS_APP`.
  package var declared = false
  /// The target stays up after `launching_finished` (a daemon): each launch is stopped with
  /// SIGTERM as a supervisor would, and must exit 0.
  package var daemon = false
  /// Where the target's own failpoints fire, when not during the launch (`repair`,
  /// `after_launch`), from its listing.
  package var pointPhases: [String: String] = [:]

  /// A configuration.
  package init(threshold: Int, levels: [(name: String, at: Int)], protectFinishes: Bool, lifeActions: [String]) {
    self.threshold = threshold
    self.levels = levels
    self.protectFinishes = protectFinishes
    self.lifeActions = lifeActions
  }

  package static func == (lhs: ExplorationApp, rhs: ExplorationApp) -> Bool {
    lhs.threshold == rhs.threshold && lhs.levels.map(\.name) == rhs.levels.map(\.name)
      && lhs.levels.map(\.at) == rhs.levels.map(\.at) && lhs.protectFinishes == rhs.protectFinishes
      && lhs.lifeActionsHeld == rhs.lifeActionsHeld && lhs.lifeActions == rhs.lifeActions
      && lhs.customProtectsAt == rhs.customProtectsAt
      && lhs.exhaustedExitStatus == rhs.exhaustedExitStatus && lhs.staysDegraded == rhs.staysDegraded
      && lhs.deadlineSeconds == rhs.deadlineSeconds
      && lhs.ignoresTermination == rhs.ignoresTermination && lhs.ignoresReboots == rhs.ignoresReboots
      && lhs.resetsOnNewBinary == rhs.resetsOnNewBinary && lhs.declared == rhs.declared && lhs.daemon == rhs.daemon
      && lhs.pointPhases == rhs.pointPhases
  }

  /// Whether the app makes the organizer's calls a second time (`second_calls`): every
  /// generated configuration of the reference app does.
  package var secondCalls: Bool { !declared }

  /// As `CHAOS_APP` fields.
  var json: JSONValue {
    var fields: [String: JSONValue] = [
      "protect_finish": .string(protectFinishes ? (lifeActionsHeld ? "after_life_actions" : "immediate") : "never"),
      "life_actions": .array(lifeActions.map(JSONValue.string)),
    ]
    if secondCalls { fields["second_calls"] = .bool(true) }
    if let exhaustedExitStatus { fields["exhausted"] = .string("exit(\(exhaustedExitStatus))") }
    if staysDegraded { fields["exhausted"] = .string("stay-degraded") }
    // The "What counts" filters, sent only when turned off (the reference app's defaults are on).
    if !ignoresTermination { fields["ignore_termination"] = .bool(false) }
    if !ignoresReboots { fields["ignore_reboots"] = .bool(false) }
    if !resetsOnNewBinary { fields["reset_on_new_binary"] = .bool(false) }
    if let deadlineSeconds { fields["launch_deadline_ms"] = .number((deadlineSeconds * 1000).rounded()) }
    if levels.isEmpty {
      fields["threshold"] = .number(Double(threshold))
    } else {
      fields["levels"] = .array(
        levels.map { .object(["name": .string($0.name), "at": .number(Double($0.at))]) })
    }
    return .object(fields)
  }
}

/// What the contract says one launch must show. A nil field is not predicted: in a launch of
/// several processes at once, which of them counted which sibling is a matter of timing.
package struct Prediction: Sendable, Equatable {
  /// How the launch ends.
  package var outcome: Outcome
  /// The signal that ends it (`crash`).
  package var signal: Int32?
  /// Its exit status (`exit`).
  package var exitCode: Int32?
  /// The count its `launch` event reports.
  package var count: Int?
  /// Its mode: `normal` or `protect`.
  package var mode: ReportedMode?
  /// Its protect level (from 1).
  package var level: Int?
  /// Whether the held launch ran in-process after the repair.
  package var relaunched: Bool?
  /// The persisted count after the launch.
  package var stateCount: Int?
  /// The persisted attempted level after the launch (0: none).
  package var attemptedLevel: Int?
  /// The records of unfinished launches the state holds after the launch
  /// (`launches_in_progress`; nil: timing decides).
  package var launchesInProgress: Int?
  /// Why the last unfinished launch not counted was not (`last_uncounted_exit`: `cleanExit`,
  /// `terminated`, `reboot`); nil: nothing recorded yet, or not predicted.
  package var lastUncountedExit: String?
  /// Where the injected fault fired, if it did (for coverage).
  package var fired: String?
  /// The launch protects with every level of the ladder attempted (`protect_exhausted`, whatever
  /// the policy then does); nil: not predicted (processes started at once).
  package var exhausted: Bool?
  /// Every level failed and the app stays degraded (`whenExhausted(.stayDegraded)`).
  package var degraded = false
}
