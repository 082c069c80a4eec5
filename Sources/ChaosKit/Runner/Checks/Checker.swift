import Foundation
import LaunchProtection

/// Everything observed about one process, for the assertions.
struct Observation {
  var end: ProcessEnd
  var events: [TargetEvent]
  var crash: CrashRecord?
  var backtrace: Backtrace?
  var stateDirectory: String
  /// The uid it ran as (`user:`); nil: the harness's own. Its state is read as that user's
  /// (in a directory other users can write, each user's lives in its own subdirectory).
  var user: UInt32? = nil
  /// The harness stopped it as a daemon after `launching_finished` (`daemon:`).
  var stoppedByHarness = false
  /// The kubelet the harness played (`kubernetes:`), for the probe verdicts' messages.
  var kubelet: KubeletSpec? = nil
  /// The back-off the kubelet waited before this start.
  var restartDelay: Double? = nil
  /// The kernel's OOM killer killed it in its container's memory cgroup (`runtime:`).
  var oomKilled = false
  /// It ran under a real OCI runtime, which reports a death by signal N as exit status 128 + N.
  var underRuntime = false

  var outcome: Outcome {
    let launched = events.contains { $0.name == "launching_finished" }
    if oomKilled, end != .timedOut { return .oomKilled }
    // A daemon ended by the harness's stop — gracefully or by the SIGTERM itself — finished.
    if stoppedByHarness, launched, end == .exited(0) || end == .signaled(SIGTERM) { return .finished }
    if stoppedByHarness, launched, underRuntime, end == .exited(128 + SIGTERM) { return .finished }
    switch end {
    case .timedOut: return .timeout
    case .signaled(SIGKILL): return .killed
    case .signaled: return .crash
    case .exited(0) where launched: return .finished
    case .exited: return .exit
    }
  }

  var launchEvent: TargetEvent? { events.first { $0.name == "launch" } }
}

/// The assertions: each expectation compared with what was observed, as readable failures.
enum Checker {
  /// A stop the harness made after `launching_finished` (`daemon:`) is never counted: the
  /// launch after it must not list the stopped pid in its `launch` event's `counted`.
  static func checkStopsNotCounted(_ stopped: [pid_t: Int], _ seen: Observation) -> [ScenarioFailure] {
    guard !stopped.isEmpty, let counted = seen.launchEvent?["counted"]?.array else { return [] }
    return counted.compactMap(\.int).compactMap { pid in
      stopped[pid_t(pid)].map { launch in
        ScenarioFailure(
          .stopCounted,
          "counted launch \(launch) (pid \(pid)), which the harness stopped with SIGTERM after it finished launching: a stop is never counted"
        )
      }
    }
  }

  static func check(_ expect: Expectation, _ seen: Observation) -> [ScenarioFailure] {
    var failures: [ScenarioFailure] = []
    func fail(_ kind: ScenarioFailure.Kind, _ what: String? = nil, expected: String, saw: String) {
      failures.append(.expected(kind, expected, saw: saw, named: what))
    }
    if let outcome = expect.outcome, seen.outcome != outcome {
      fail(.outcome, expected: outcome.rawValue, saw: "\(seen.outcome.rawValue) (\(seen.end))")
    }
    if let signal = expect.signal, seen.end != .signaled(signal) {
      fail(.signal, expected: Signals.name(signal), saw: seen.end.description)
    }
    if let code = expect.exitCode, seen.end != .exited(code) {
      fail(.exitCode, expected: String(code), saw: seen.end.description)
    }
    let launch = seen.launchEvent
    if let count = expect.count, launch?["count"]?.int != count {
      fail(.count, expected: String(count), saw: launch?["count"]?.description ?? "no launch event")
    }
    if let mode = expect.mode, launch?["mode"]?.string != mode.rawValue {
      fail(.mode, expected: mode.rawValue, saw: launch?["mode"]?.string ?? "no launch event")
    }
    if let level = expect.level, launch?["level"]?.int != level {
      fail(.level, expected: String(level), saw: launch?["level"]?.description ?? "none")
    }
    if let relaunched = expect.relaunched {
      let did = seen.events.contains { $0.name == "relaunch" }
      if did != relaunched { fail(.relaunched, expected: String(relaunched), saw: String(did)) }
    }
    if let missing = firstMissing(expect.events, in: seen.events) {
      fail(
        .events, "events in order", expected: expect.events.map(\.description).joined(separator: " → "),
        saw: "no \(missing) after the earlier ones (events: \(seen.events.map(\.name).joined(separator: ", ")))")
    }
    for pattern in expect.events {
      guard let times = pattern.times else { continue }
      let seenTimes = seen.events.filter { matches(pattern, $0) }.count
      if seenTimes != times {
        fail(.events, "events", expected: pattern.description, saw: "\(seenTimes) of them")
      }
    }
    for pattern in expect.noEvents {
      if let found = seen.events.first(where: { matches(pattern, $0) }) {
        fail(.noEvents, "no event", expected: pattern.description, saw: "one at events line \(found.line)")
      }
    }
    if !expect.notify.isEmpty {
      let messages = seen.events.filter { $0.name == "notify" }.compactMap { $0["message"]?.string }
      var cursor = messages.startIndex
      for wanted in expect.notify {
        let matches = { (message: String) in
          wanted.hasSuffix("*") ? message.hasPrefix(String(wanted.dropLast())) : message == wanted
        }
        guard let found = messages[cursor...].firstIndex(where: matches) else {
          fail(
            .notify, "notify messages in order", expected: expect.notify.joined(separator: " → "),
            saw: "no '\(wanted)' after the earlier ones (messages: \(messages.joined(separator: " | ")))")
          break
        }
        cursor = found + 1
      }
    }
    if !expect.backtraceContains.isEmpty {
      if let backtrace = seen.backtrace {
        for text in expect.backtraceContains where !backtrace.contains(text) {
          failures.append(
            ScenarioFailure(
              .backtraceContains, "expected backtrace_contains '\(text)', saw frames:\n\(backtrace.description)"))
        }
      } else {
        fail(.backtraceContains, expected: expect.backtraceContains.joined(separator: ", "), saw: "no crash record")
      }
    }
    if let bound = expect.handlerLatencyMicroseconds {
      if let crash = seen.crash {
        if crash.handlerLatencyMicroseconds > bound {
          fail(
            .handlerLatency, expected: "≤ \(bound)", saw: String(format: "%.1f", crash.handlerLatencyMicroseconds))
        }
      } else {
        fail(.handlerLatency, expected: "≤ \(bound)", saw: "no crash record")
      }
    }
    if let state = expect.state { failures += checkState(state, seen) }
    failures += KubeletChecks.check(expect, seen)
    return failures
  }

  private static func checkState(_ expect: StateExpectation, _ seen: Observation) -> [ScenarioFailure] {
    var failures: [ScenarioFailure] = []
    // Read only when a scenario asks about the state, after the process is gone.
    let state: LaunchState?
    do {
      // No file is a first launch (the contract): count 0, nothing in progress.
      state = try StateStore(directory: seen.stateDirectory, readerGroup: nil, owner: seen.user).read() ?? LaunchState()
    } catch {
      return [ScenarioFailure(.stateUnreadable, "expected a readable state, saw \(error.description)")]
    }
    func fail(_ kind: ScenarioFailure.Kind, _ expected: String, _ saw: String) {
      failures.append(.expected(kind, expected, saw: saw))
    }
    if let count = expect.count, state?.consecutiveCrashes != count {
      fail(.stateCount, String(count), state.map { String($0.consecutiveCrashes) } ?? "no state file")
    }
    if let running = expect.launchesInProgress, state?.launchesInProgress.count != running {
      fail(
        .stateLaunchesInProgress, String(running), state.map { String($0.launchesInProgress.count) } ?? "no state file")
    }
    if let level = expect.attemptedLevel, (state?.attemptedProtectLevel ?? 0) != level {
      fail(.stateAttemptedLevel, String(level), String(state?.attemptedProtectLevel ?? 0))
    }
    if let type = expect.lastCrashType, state?.lastCrashCause?.type != type {
      fail(.stateLastCrashType, type, state?.lastCrashCause?.type ?? "none")
    }
    if let reason = expect.lastUncountedExit, state?.lastUncountedExit?.reason.rawValue != reason {
      fail(.stateLastUncountedExit, reason, state?.lastUncountedExit?.reason.rawValue ?? "none")
    }
    if let movedAside = expect.movedAside {
      let names = (try? FileManager.default.contentsOfDirectory(atPath: seen.stateDirectory)) ?? []
      let found = names.contains { $0.hasPrefix("launch-state.json.") && !$0.contains(".tmp-") }
      if found != movedAside { fail(.stateMovedAside, String(movedAside), String(found)) }
    }
    return failures
  }

  /// The first pattern not found, in order, as a subsequence of the events (a pattern with
  /// `times` is counted over the whole launch instead, wherever its events fall).
  static func firstMissing(_ patterns: [EventPattern], in events: [TargetEvent]) -> EventPattern? {
    var cursor = events.startIndex
    for pattern in patterns where pattern.times == nil {
      guard let found = events[cursor...].firstIndex(where: { matches(pattern, $0) }) else { return pattern }
      cursor = found + 1
    }
    return nil
  }

  static func matches(_ pattern: EventPattern, _ event: TargetEvent) -> Bool {
    event.name == pattern.name && pattern.fields.allSatisfy { event[$0.key] == $0.value }
  }
}
