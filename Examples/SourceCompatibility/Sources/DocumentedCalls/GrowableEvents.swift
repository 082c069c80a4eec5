import LaunchProtection

// LaunchProtectionEvent, IgnoredReason, UncountedReason and LaunchOrganizerError became
// growable structs (issue 53): what a 0.2.0 caller wrote that still compiles, and the way to
// read them from 1.0 on.

/// 0.2.0: events built by their case names, compared, and matched when they carry nothing.
func oldEventForms(_ observation: LaunchObservation, level: ProtectLevel) -> Bool {
  let built: [LaunchProtectionEvent] = [
    .protectEnter(count: 2, level: level), .protectFinish(level: level), .relaunch, .launchingFinished,
    .lifeAction(key: "sync", outcome: .held), .uncountedExit(.cleanExit), .stopRequested,
    .levelsExhausted(count: 3, level: level, action: .repeatLastLevel),
  ]
  if case .launchingFinished = observation.event { return true }
  if case .stopRequested? = observation.event { return true }
  return built.contains { $0 == observation.event }
}

/// 1.0: switch over the kind, with a default, and read the payload it names.
func describe(_ event: LaunchProtectionEvent) -> String {
  switch event.kind {
  case .launch:
    let ignored = event.decision?.ignored.map { "\($0.record.process.pid) \($0.reason)" } ?? []
    return "count \(event.decision?.count ?? 0), ignored \(ignored)"
  case .protectEnter: return "repair at level \(event.level?.number ?? 0)"
  case .launchDeadlineExceeded:
    return "the \(event.phase?.step ?? "launch") hung past \(String(describing: event.deadline))"
  case .uncountedExit: return event.uncountedReason == .reboot ? "rebooted" : "not counted"
  default: return event.kind.name
  }
}

/// The async API's error: 0.2.0 compared it with its cases; 1.0 reads its code.
func handle(_ error: any Error) -> Bool {
  guard let error = error as? LaunchOrganizerError else { return false }
  if error == .alreadyStarted { return true }
  return error.code == .degraded && error.level != nil
}

/// 0.2.0's patterns without bindings, on events with a payload and on the async API's error.
func oldPatterns(_ observation: LaunchObservation, _ error: any Error) -> Int {
  guard let event = observation.event else { return 0 }
  if case .protectEnter = event { return 1 }
  if case .uncountedExit? = observation.event { return 7 }
  // `case .launchDeadlineExceeded` is ambiguous (two construction overloads): compare `event.kind`.
  guard event.kind == .launchDeadlineExceeded else {
    switch event {
    case .launch: return 2
    case .stopRequested: return 3
    default: break
    }
    if let failure = error as? LaunchOrganizerError, case .degraded = failure { return 4 }
    return 0
  }
  do { throw error } catch LaunchOrganizerError.alreadyStarted { return 5 } catch { return 6 }
}
