/// What one process wrote and when, kept in its result for the reports that draw it
/// (`chaos run --html`, `--trace`): passing scenarios' artifacts are deleted, so what the
/// reports need is copied here first. Recorded only with `RunOptions.recordsTimeline`.
package struct ProcessTimeline: Codable, Sendable, Equatable {
  /// One event of the process's events file (and the harness's own lines in it).
  package struct Event: Codable, Sendable, Equatable {
    /// Its name (`launch`, `failpoint`, `crash`…).
    package var event: String
    /// CLOCK_MONOTONIC nanoseconds.
    package var t: UInt64
    /// Its other fields (a crash record without its raw frames and module map).
    package var fields: [String: JSONValue]

    /// An event as recorded.
    package init(event: String, t: UInt64, fields: [String: JSONValue]) {
      self.event = event
      self.t = t
      self.fields = fields
    }

    /// A field as text, when it is a string, number or boolean.
    package func text(_ key: String) -> String? {
      switch fields[key] {
      case .string(let value)?: value
      case .number(let value)?: value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
      case .bool(let value)?: String(value)
      default: nil
      }
    }
  }

  /// CLOCK_MONOTONIC nanoseconds just after the spawn.
  package var spawned: UInt64
  /// CLOCK_MONOTONIC nanoseconds when it was reaped.
  package var reaped: UInt64
  /// Its events, in file order.
  package var events: [Event]
  /// The first symbolized frames of its crash, innermost first (empty without a crash).
  package var crashFrames: [String]

  /// A recorded timeline.
  package init(spawned: UInt64, reaped: UInt64, events: [Event], crashFrames: [String]) {
    self.spawned = spawned
    self.reaped = reaped
    self.events = events
    self.crashFrames = crashFrames
  }

  /// A task's run, read from its `task_start` and `task_end` (or `task_failed`) events.
  package struct TaskRun: Sendable {
    package var name: String
    /// The thread the target named in `task_start` (`main` when it named none).
    package var thread: String
    /// CLOCK_MONOTONIC ns.
    package var start: UInt64
    package var end: UInt64
    /// The tasks it waited for (`task_start`'s `after`).
    package var after: [String]
    /// It failed, or was still running when the process died (it then ends with the process).
    package var failed: Bool
  }

  /// The task runs, by start (a relaunch runs the tasks again: each run is its own).
  package var taskRuns: [TaskRun] {
    var open: [String: TaskRun] = [:]
    var runs: [TaskRun] = []
    for event in events {
      guard let task = event.text("task") else { continue }
      if event.event == "task_start" {
        var after: [String] = []
        if case .array(let names)? = event.fields["after"] {
          after = names.compactMap { if case .string(let name) = $0 { name } else { nil } }
        }
        open[task] = TaskRun(
          name: task, thread: event.text("thread") ?? "main", start: event.t, end: event.t, after: after, failed: false)
      } else if event.event == "task_end" || event.event == "task_failed", var run = open.removeValue(forKey: task) {
        run.end = event.t
        run.failed = event.event == "task_failed"
        runs.append(run)
      }
    }
    for var run in open.values {
      run.end = max(run.start, reaped)
      run.failed = true
      runs.append(run)
    }
    return runs.sorted { ($0.start, $0.name) < ($1.start, $1.name) }
  }

  /// The events of a decoded events file, without what the reports never show (the raw
  /// frames and module maps of crash records and thread dumps).
  static func events(_ decoded: [TargetEvent]) -> [Event] {
    decoded.map { event in
      var fields = event.fields
      for key in ["event", "pid", "t", "frames", "modules"] { fields[key] = nil }
      return Event(event: event.name, t: event.time, fields: fields)
    }
  }

  /// The first `limit` frames of a symbolized backtrace that name a function outside the crash
  /// handler and the fault injector (a failpoint's crash is the app's), as `function (file:line)`.
  static func frames(_ backtrace: Backtrace, limit: Int = 6) -> [String] {
    let named = backtrace.frames.filter { frame in
      guard let function = frame.functions.first, function != "??" else { return false }
      return ![
        "crash_capture", "ccc_", "CrashCapture", "__restore_rt", "pthread_kill", "cf_fault_", "FaultInjection",
        "FailpointRegistry", "evaluateFailpoint",
      ].contains {
        function.contains($0)
      }
    }
    return named.prefix(limit).map { frame in
      let function = frame.functions.first ?? frame.address
      guard let file = frame.file else { return function }
      let name = file.split(separator: "/").last.map(String.init) ?? file
      return frame.line.map { "\(function) (\(name):\($0))" } ?? "\(function) (\(name))"
    }
  }
}
