#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

extension Timeline {
  /// The timeline in the Trace Event Format that Perfetto (ui.perfetto.dev) and chrome://tracing
  /// open: `{"traceEvents": […], "displayTimeUnit": "ms"}` with
  ///
  /// - a `process_name` and a `thread_name` metadata event (`"ph": "M"`) for each thread;
  /// - one complete slice (`"ph": "X"`) per task, `ts` and `dur` in microseconds from the
  ///   first task's start (`originNanoseconds` converts back to the events' clock), on the
  ///   track (`tid`) of the thread that ran it — a task that outlived its thread's next start
  ///   (an asynchronous task) gets a track of its own, so the slices on a track never overlap;
  /// - a flow arrow (`"ph": "s"` at the dependency, `"ph": "f"` with `"bp": "e"` at the
  ///   dependent) for each dependency;
  /// - `otherData`: `{"clock": "CLOCK_MONOTONIC", "origin_ns": …}`, where `ts` 0 is on the clock
  ///   of ChaosProbe's events, so a trace lines up with the events file's `t`.
  ///
  /// ```swift
  /// try workflow.run()
  /// try workflow.generateTimeline().traceEvents().write(toFile: "launch.trace.json", atomically: true, encoding: .utf8)
  /// ```
  ///
  /// - Parameters:
  ///   - processName: the name the viewer gives the process.
  ///   - pid: the process id in the trace (the real one, to merge traces of several processes).
  /// - Returns: the JSON text.
  public func traceEvents(processName: String = "launch", pid: Int = 1) -> String {
    var events = [TraceEvent(metadata: "process_name", name: processName, pid: pid, tid: 0)]
    var tracks: [(thread: String, end: Double)] = []
    var slices: [String: (tid: Int, start: Double)] = [:]
    for entry in entries.sorted(by: { ($0.startMicroseconds, $0.task) < ($1.startMicroseconds, $1.task) }) {
      let end = entry.startMicroseconds + entry.durationMicroseconds
      let index: Int
      if let free = tracks.indices.first(where: {
        tracks[$0].thread == entry.thread && tracks[$0].end <= entry.startMicroseconds
      }) {
        index = free
        tracks[index].end = end
      } else {
        index = tracks.count
        let sameThread = tracks.filter { $0.thread == entry.thread }.count
        tracks.append((entry.thread, end))
        let name = sameThread == 0 ? entry.thread : "\(entry.thread) (\(sameThread + 1))"
        events.append(TraceEvent(metadata: "thread_name", name: name, pid: pid, tid: index + 1))
      }
      events.append(
        TraceEvent(
          name: entry.task, cat: "task", ph: "X", ts: entry.startMicroseconds, dur: entry.durationMicroseconds,
          pid: pid,
          tid: index + 1,
          args: entry.runsAfter.map { $0.isEmpty ? nil : ["runs_after": $0.joined(separator: ", ")] } ?? nil))
      slices[entry.task] = (index + 1, entry.startMicroseconds)
    }
    var flow = 0
    for entry in entries {
      guard let to = slices[entry.task] else { continue }
      for dependency in entry.runsAfter ?? [] {
        guard let from = slices[dependency] else { continue }
        flow += 1
        let name = "\(dependency) → \(entry.task)"
        events.append(
          TraceEvent(name: name, cat: "dependency", ph: "s", ts: from.start, pid: pid, tid: from.tid, id: flow))
        events.append(
          TraceEvent(name: name, cat: "dependency", ph: "f", ts: to.start, pid: pid, tid: to.tid, id: flow, bp: "e"))
      }
    }
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    let other = originNanoseconds.map { ["clock": "CLOCK_MONOTONIC", "origin_ns": String($0)] }
    let file = TraceFile(traceEvents: events, displayTimeUnit: "ms", otherData: other)
    return (try? encoder.encode(file)).map { String(decoding: $0, as: UTF8.self) } ?? "{\"traceEvents\":[]}"
  }
}

/// The Trace Event Format's top-level object.
private struct TraceFile: Encodable {
  var traceEvents: [TraceEvent]
  var displayTimeUnit: String
  /// Where `ts` 0 is on CLOCK_MONOTONIC (the clock of ChaosProbe's events), to line traces up.
  var otherData: [String: String]?
}

/// One trace event; absent fields are left out.
private struct TraceEvent: Encodable {
  var name: String
  var cat: String?
  var ph: String
  var ts: Double
  var dur: Double?
  var pid: Int
  var tid: Int
  var id: Int?
  var bp: String?
  var args: [String: String]?

  init(
    name: String, cat: String? = nil, ph: String, ts: Double, dur: Double? = nil, pid: Int, tid: Int, id: Int? = nil,
    bp: String? = nil, args: [String: String]? = nil
  ) {
    self.name = name
    self.cat = cat
    self.ph = ph
    self.ts = ts
    self.dur = dur
    self.pid = pid
    self.tid = tid
    self.id = id
    self.bp = bp
    self.args = args
  }

  /// A `process_name` or `thread_name` metadata event.
  init(metadata kind: String, name: String, pid: Int, tid: Int) {
    self.init(name: kind, ph: "M", ts: 0, pid: pid, tid: tid, args: ["name": name])
  }
}
