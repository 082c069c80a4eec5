import Foundation

/// `chaos run --trace`: every launch's tasks of a scenario in one file of the Trace Event
/// Format (what Perfetto and chrome://tracing open): a process (pid) per launch process, a
/// thread (tid) per thread that ran tasks, a complete slice per task, its dependencies (the
/// `after` field of `task_start`) as flow arrows, and the crash, failpoints and phase changes
/// as instant events. Timestamps are µs from the scenario's first spawn, on the events' clock.
package enum ScenarioTrace {
  /// The events that become instants on the process's own track.
  static let instants: Set<String> = [
    "launch", "failpoint", "crash", "protect_enter", "relaunch", "launching_finished", "launch_hang", "supervisor",
  ]

  /// The trace as JSON text (`{"traceEvents": […], "displayTimeUnit": "ms"}`); nil when no
  /// process has a recorded timeline.
  package static func json(_ result: ScenarioResult) -> String? {
    let timelines = result.processes.compactMap { process in process.timeline.map { (process, $0) } }
    guard let origin = timelines.map({ $0.1.spawned }).min() else { return nil }
    let micro = { (time: UInt64) -> Double in Double(Int64(bitPattern: time &- origin)) / 1_000 }
    var events: [[String: Any]] = []
    var flows = 0
    for (process, timeline) in timelines {
      let pid = Int(process.pid)
      let shared = result.processes.contains { $0.launch == process.launch && $0.process > 1 }
      var label = "launch \(process.launch)"
      if process.iteration > 1 { label += " repeat \(process.iteration)" }
      if shared { label += " process \(process.process)" }
      events.append(metadata("process_name", pid: pid, tid: 0, name: "\(label) (pid \(pid))"))
      events.append([
        "name": "process_sort_index", "ph": "M", "ts": 0, "pid": pid, "tid": 0, "args": ["sort_index": pid],
      ])
      events += taskEvents(timeline.taskRuns, pid: pid, micro: micro, flows: &flows)
      for event in timeline.events where instants.contains(event.event) {
        events.append([
          "name": event.event, "cat": "launch", "ph": "i", "s": "p", "ts": micro(event.t), "pid": pid, "tid": 0,
          "args": event.fields.mapValues { "\($0)" },
        ])
      }
    }
    let object: [String: Any] = ["traceEvents": events, "displayTimeUnit": "ms"]
    guard let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]) else { return nil }
    return String(decoding: data, as: UTF8.self)
  }

  /// Thread names, slices and flow arrows for one process's task runs. A dependency is the
  /// latest run of that name that started before the dependent (a relaunch runs every task again).
  static func taskEvents(_ runs: [ProcessTimeline.TaskRun], pid: Int, micro: (UInt64) -> Double, flows: inout Int)
    -> [[String: Any]]
  {
    var events: [[String: Any]] = []
    var threads: [String: Int] = [:]
    var placed: [(run: ProcessTimeline.TaskRun, tid: Int)] = []
    for run in runs {
      let tid =
        threads[run.thread]
        ?? {
          let tid = threads.count + 1
          threads[run.thread] = tid
          events.append(metadata("thread_name", pid: pid, tid: tid, name: run.thread))
          return tid
        }()
      var args: [String: Any] = [:]
      if !run.after.isEmpty { args["after"] = run.after }
      if run.failed { args["failed"] = true }
      events.append([
        "name": run.name, "cat": "task", "ph": "X", "ts": micro(run.start), "dur": micro(run.end) - micro(run.start),
        "pid": pid, "tid": tid, "args": args,
      ])
      for dependency in run.after {
        guard let from = placed.last(where: { $0.run.name == dependency && $0.run.start <= run.start }) else {
          continue
        }
        flows += 1
        let name = "\(dependency) → \(run.name)"
        events.append([
          "name": name, "cat": "dependency", "ph": "s", "id": flows, "ts": micro(from.run.start), "pid": pid,
          "tid": from.tid,
        ])
        events.append([
          "name": name, "cat": "dependency", "ph": "f", "bp": "e", "id": flows, "ts": micro(run.start), "pid": pid,
          "tid": tid,
        ])
      }
      placed.append((run, tid))
    }
    return events
  }

  private static func metadata(_ kind: String, pid: Int, tid: Int, name: String) -> [String: Any] {
    ["name": kind, "ph": "M", "ts": 0, "pid": pid, "tid": tid, "args": ["name": name]]
  }

  /// A file name for a scenario's trace: its group and file name, `-2`, `-3`… for repeats.
  package static func fileName(_ result: ScenarioResult, taken: inout Set<String>) -> String {
    let stem = result.group + "-" + URL(fileURLWithPath: result.path).deletingPathExtension().lastPathComponent
    let base = String(stem.map { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" ? $0 : "_" })
    var name = base
    var counter = 1
    while taken.contains(name) {
      counter += 1
      name = "\(base)-\(counter)"
    }
    taken.insert(name)
    return name + ".trace.json"
  }
}
