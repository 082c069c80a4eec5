import Foundation

/// What `ScenarioRunner` observes and checks of each process once it is gone (the environment
/// it gives one is in LaunchEnvironment.swift).
extension ScenarioRunner {
  func observe(
    _ end: ProcessEnd, pid: pid_t, directory: String, spec: LaunchSpec, number: Int, iteration: Int, process: Int,
    stateDirectory: String, stoppedByHarness: Bool, stoppedEarlier: [pid_t: Int],
    span: (spawned: UInt64, reaped: UInt64), kubelet: KubeletSpec?, restartDelay: Double?,
    container: RuntimeContainer.Ending? = nil
  ) -> ProcessResult {
    var failures: [ScenarioFailure] = []
    var events: [TargetEvent] = []
    do {
      events = try EventDecoder.decode(path: directory + "/events.ndjson").events
    } catch {
      failures.append(ScenarioFailure(.malformedEvents, "malformed events file: \(error)"))
    }
    if RunProfile.enabled, let first = events.first, let last = events.last, first.time >= span.spawned,
      span.reaped >= last.time
    {
      // The target's own time (inside the wait): from its exec to its first event (loading,
      // start-up, the organizer's decision), to its last event, and from there to its reap.
      RunProfile.add("  target: exec -> first event", nanoseconds: first.time - span.spawned)
      RunProfile.add("  target: first -> last event", nanoseconds: last.time &- first.time)
      RunProfile.add("  target: last event -> reaped", nanoseconds: span.reaped - last.time)
    }
    var crash: CrashRecord?
    if let event = events.last(where: { $0.name == "crash" }) {
      do { crash = try CrashRecord(event: event) } catch {
        failures.append(
          ScenarioFailure(.malformedEvents, "malformed crash record at events line \(event.line): \(error)"))
      }
    }
    let wantsBacktrace = !spec.expect.backtraceContains.isEmpty || options.recordsTimeline
    let backtrace = wantsBacktrace ? crash.map(symbolizer.symbolize) : nil
    let observation = Observation(
      end: end, events: events, crash: crash, backtrace: backtrace, stateDirectory: stateDirectory,
      user: spec.user?.uid, stoppedByHarness: stoppedByHarness, kubelet: kubelet, restartDelay: restartDelay,
      oomKilled: container?.oomKilled ?? false, underRuntime: container != nil)
    failures += Checker.check(spec.expect, observation)
    failures += Checker.checkStopsNotCounted(stoppedEarlier, observation)
    failures += OutputChecks.check(spec.expect.output, directory: directory)
    failures += FileChecks.check(spec.expect.files, stateDirectory: stateDirectory)
    let fault = events.last { $0.name == "failpoint" }
    var timeline: ProcessTimeline?
    if options.recordsTimeline {
      timeline = ProcessTimeline(
        spawned: span.spawned, reaped: span.reaped, events: ProcessTimeline.events(events),
        crashFrames: backtrace.map { ProcessTimeline.frames($0) } ?? [])
    }
    let reportedPid = observation.launchEvent?["pid"]?.int.map { pid_t(truncatingIfNeeded: $0) }
    var result = ProcessResult(
      launch: number, line: spec.line, iteration: iteration, process: process, pid: pid, end: end,
      outcome: observation.outcome, count: observation.launchEvent?["count"]?.int,
      mode: observation.launchEvent?["mode"]?.string.flatMap(ReportedMode.init(rawValue:)),
      relaunched: events.contains { $0.name == "relaunch" },
      handlerLatencyMicroseconds: crash?.handlerLatencyMicroseconds,
      deliveryLatencyMicroseconds: crash.flatMap { record in
        fault.map { Double(Int64(bitPattern: record.entered &- $0.time)) / 1_000 }
      },
      durationMilliseconds: Double(span.reaped - span.spawned) / 1e6, artifacts: directory, failures: failures,
      stoppedByHarness: stoppedByHarness, timeline: timeline)
    if let reportedPid, reportedPid != pid { result.targetPid = reportedPid }
    return result
  }
}

/// A cheap look for an event name in a growing events file (for `send_signal` and `requests`),
/// written compactly (`"event":"name"`) or with a space after the colon (`"event": "name"`).
enum EventPeek {
  static func contains(_ name: String, path: String) -> Bool {
    guard let data = FileManager.default.contents(atPath: path) else { return false }
    let text = String(decoding: data, as: UTF8.self)
    return text.contains("\"event\":\"\(name)\"") || text.contains("\"event\": \"\(name)\"")
  }
}
