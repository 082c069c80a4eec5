import Failpoints
import Foundation
import LaunchProtection

// Issue 53's types that can grow: 0.2.0's forms that still compile (some deprecated), beside
// today's. `Outcome` is ChaosKit's: Tests/DocumentedCallsTests/GrowableOutcome.swift.

/// `FailpointAction`, a struct: the former cases are static members of the same names.
public func failpointActions() -> [FailpointAction] {
  let old: [FailpointAction] = [
    .off, .print("hi"), .sleep(milliseconds: 10), .delay(milliseconds: 1), .hang, .exit(code: 3),
    .returnError(errno: 28), .segv, .bus, .fpe, .abort, .trap, .fatal, .unwrap, .overflow, .outOfBounds,
    .stackOverflow, .smashedStack, .kill, .oom(megabytes: FailpointAction.defaultOOMMegabytes), .thread(.segv),
  ]
  var fatal = 0
  for action in old {
    // 0.2.0's case names, as values, with a `default`.
    switch action {
    case .segv, .kill: fatal += 1
    default: break
    }
    // Today's form: the code, then the argument it takes.
    switch action.code {
    case .sleep, .delay: _ = action.milliseconds
    case .returnError: _ = action.errno
    case .thread: _ = action.inner?.spec
    default: _ = action.isFatal
    }
  }
  _ = FailpointAction.keywords
  _ = FailpointAction.Code.all.map(\.name)
  return old
}

/// `LaunchStatus`: one mode type (`LaunchMode`) and the level as a `ProtectLevel`.
public func launchStatusFields(_ organizer: LaunchOrganizer) {
  let status = organizer.status
  // 0.2.0 (deprecated).
  _ = status.mode == .degraded
  _ = status.mode.rawValue
  _ = status.level ?? 0
  _ = status.levelName ?? "none"
  _ = LaunchStatus.Mode.allCases.count
  _ = LaunchStatus(mode: .protect, level: 1, levelName: "clear-caches", count: 2, since: Date())
  // Today.
  switch status.launchMode {
  case .protect(let level): _ = (level.number, status.isDegraded)
  case .finished: _ = status.launchTime
  default: break
  }
  _ = status.protectLevel?.name
  _ = status.modeName
  _ = LaunchStatus.modeNames
  _ = LaunchStatus(launchMode: .finished, count: 0, since: Date())
}

/// The state's timestamps: `Date`s, the `Double` seconds since 1970 deprecated.
public func stateTimestamps(_ state: LaunchState) {
  for record in state.launchesInProgress {
    // 0.2.0 (deprecated).
    _ = record.startedAt
    _ = record.stopRequestedAt
    // Today.
    _ = record.startDate
    _ = record.stopRequestDate
  }
  let identity = ProcessIdentity(pid: 1, startTime: 1, bootID: "boot")
  _ = LaunchRecord(process: identity, launchID: "l", phase: .launching, startedAt: 1_700_000_000)
  _ = LaunchRecord(process: identity, launchID: "l", phase: .launching, startDate: Date())
  _ = CrashCause(type: "SIGSEGV", recordedAt: 1_700_000_000).recordedAt
  _ = CrashCause(type: "SIGSEGV", recordDate: Date()).recordDate
  _ = UncountedExit(reason: .reboot, pid: 2, decidedAt: 1_700_000_000).decidedAt
  _ = UncountedExit(reason: .reboot, pid: 2, decisionDate: Date()).decisionDate
  _ = DependencyOutage(dependency: "db", launchesInARow: 1, pid: 2, decidedAt: 1_700_000_000).decidedAt
  _ = DependencyOutage(dependency: "db", launchesInARow: 1, pid: 2, decisionDate: Date()).decisionDate
}
