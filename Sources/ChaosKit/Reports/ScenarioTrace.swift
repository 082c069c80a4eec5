import Foundation

/// `chaos run --trace`: every launch's tasks of a scenario in one file of the Trace Event
/// Format (what Perfetto and chrome://tracing open): a process (pid) per launch process, a
/// thread (tid) per thread that ran tasks, a complete slice per task, its dependencies (the
/// `after` field of `task_start`) as flow arrows, and the crash, failpoints and phase changes
/// as instant events. Timestamps are µs from the scenario's first spawn, on the events' clock.
package enum ScenarioTrace {
  /// The trace as JSON text (`{"traceEvents": […], "displayTimeUnit": "ms"}`); nil when no
  /// process has a recorded timeline.
  package static func json(_ result: ScenarioResult) -> String? {
    let timelines = result.processes.compactMap { process in process.timeline.map { (process, $0) } }
    guard let origin = timelines.map({ $0.1.spawned }).min() else { return nil }
    let micro = { (time: UInt64) -> Double in Double(Int64(bitPattern: time &- origin)) / 1_000 }
    var events: [[String: Any]] = []
    var flow = 0
    for (process, timeline) in timelines {
      let pid = Int(process.pid)
      var label = "launch \(process.launch)"
      if process.iteration > 1 { label += " repeat \(process.iteration)" }
      if process.process > 1 || result.processes.contains(where: { $0.launch == process.launch && $0.process > 1 }) {
        label += " process \(process.process)"
      }
      events.append(metadata("process_name", pid: pid, tid: 0, name: "\(label) (pid \(pid))"))
      events.append([
        "name": "process_sort_index", "ph": "M", "ts": 0, "pid": pid, "tid": 0, "args": ["sort_index": pid],
      ])
      var threads: [String: Int] = [:]
      var slices: [String: (tid: Int, start: Double, end: Double)] = [:]
      var open: [String: (thread: String, start: UInt64, after: [String])] = [:]
      var finished: [(name: String, thread: String, start: UInt64, end: UInt64, after: [String], failed: Bool)] = []
      for event in timeline.events {
        guard let task = event.text("task") else { continue }
        if event.event == "task_start" {
          let after = event.fields["after"].flatMap { value -> [String]? in
            guard case .array(let names) = value else { return nil }
            return names.compactMap { if case .string(let name) = $0 { name } else { nil } }
          }
          open[task] = (event.text("thread") ?? "main", event.t, after ?? [])
        } else if event.event == "task_end" || event.event == "task_failed",
          let started = open.removeValue(forKey: task)
        {
          finished.append((task, started.thread, started.start, event.t, started.after, event.event == "task_failed"))
        }
      }
      // A task still running when the process died ends with it.
      for (task, started) in open {
        finished.append((task, started.thread, started.start, max(started.start, timeline.reaped), started.after, true))
      }
      for task in finished.sorted(by: { ($0.start, $0.name) < ($1.start, $1.name) }) {
        let tid =
          threads[task.thread]
          ?? {
            let tid = threads.count + 1
            threads[task.thread] = tid
            events.append(metadata("thread_name", pid: pid, tid: tid, name: task.thread))
            return tid
          }()
        var args: [String: Any] = [:]
        if !task.after.isEmpty { args["after"] = task.after }
        if task.failed { args["failed"] = true }
        events.append([
          "name": task.name, "cat": "task", "ph": "X", "ts": micro(task.start),
          "dur": micro(task.end) - micro(task.start),
          "pid": pid, "tid": tid, "args": args,
        ])
        slices[task.name] = (tid, micro(task.start), micro(task.end))
      }
      for task in finished {
        guard let slice = slices[task.name] else { continue }
        for dependency in task.after {
          guard let from = slices[dependency] else { continue }
          flow += 1
          events.append([
            "name": "\(dependency) → \(task.name)", "cat": "dependency", "ph": "s", "id": flow, "ts": from.start,
            "pid": pid, "tid": from.tid,
          ])
          events.append([
            "name": "\(dependency) → \(task.name)", "cat": "dependency", "ph": "f", "bp": "e", "id": flow,
            "ts": slice.start, "pid": pid, "tid": slice.tid,
          ])
        }
      }
      let instants = [
        "launch", "failpoint", "crash", "protect_enter", "relaunch", "launching_finished", "launch_hang", "supervisor",
      ]
      for event in timeline.events where instants.contains(event.event) {
        var args: [String: Any] = [:]
        for (key, value) in event.fields { args[key] = "\(value)" }
        events.append([
          "name": event.event, "cat": "launch", "ph": "i", "s": "p", "ts": micro(event.t), "pid": pid, "tid": 0,
          "args": args,
        ])
      }
    }
    let object: [String: Any] = ["traceEvents": events, "displayTimeUnit": "ms"]
    guard let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]) else { return nil }
    return String(decoding: data, as: UTF8.self)
  }

  private static func metadata(_ kind: String, pid: Int, tid: Int, name: String) -> [String: Any] {
    ["name": kind, "ph": "M", "ts": 0, "pid": pid, "tid": tid, "args": ["name": name]]
  }

  /// A file name for a scenario's trace: its group and file name, `-2`, `-3`… for repeats.
  package static func fileName(_ result: ScenarioResult, taken: inout Set<String>) -> String {
    let stem = result.group + "-" + URL(fileURLWithPath: result.path).deletingPathExtension().lastPathComponent
    var name = stem.map { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" ? $0 : "_" }.map(String.init).joined()
    let base = name
    var counter = 1
    while taken.contains(name) {
      counter += 1
      name = "\(base)-\(counter)"
    }
    taken.insert(name)
    return name + ".trace.json"
  }
}
