/// A scenario's processes as the HTML report draws them: one group per launch (each
/// repetition its own), one row per process (`parallel:` processes are parallel rows), each
/// row's span split into phases and dotted with markers, all read from the recorded events.
package struct LaunchGroup: Sendable {
  /// The launch's number in the scenario.
  package var launch: Int
  /// Its repetition (`repeat:`), from 1.
  package var iteration: Int
  /// Its processes, in order.
  package var rows: [LaunchRow]
  /// From the first spawn to the last reap, ns: the group's time axis.
  package var nanoseconds: UInt64
}

/// One process of a launch.
package struct LaunchRow: Sendable {
  /// What the process was doing in a stretch of time.
  package enum Phase: String, Sendable, CaseIterable {
    /// From the spawn to its `launch` event (reading the state, writing the sentinel).
    case starting
    /// The launch, before `launching_finished` or protect mode.
    case launching
    /// Protect mode: the repair.
    case repair
    /// The held launch, run again in the same process after the repair.
    case relaunch
    /// After `launching_finished`, until the process ended.
    case afterLaunch = "after-launch"

    /// How the legend names it.
    package var title: String {
      switch self {
      case .starting: "starting"
      case .launching: "launching"
      case .repair: "repair (protect mode)"
      case .relaunch: "relaunch"
      case .afterLaunch: "after launch"
      }
    }
  }

  /// A stretch of one phase, ns from the group's origin.
  package struct Span: Sendable {
    package var phase: Phase
    package var start: UInt64
    package var end: UInt64
  }

  /// Something that happened at an instant.
  package struct Marker: Sendable {
    /// `failpoint`, `crash`, `deadline`, `supervisor`, `notify`, `request`, `stop`, `problem`, `task`.
    package var kind: String
    /// ns from the group's origin.
    package var time: UInt64
    /// A few words drawn beside it.
    package var label: String
    /// The whole story, for its tooltip.
    package var detail: String
    /// Whether it reports something that went wrong (a failed request, a crash).
    package var bad: Bool
  }

  /// A named task that ran (`task_start` → `task_end` or `task_failed`), ns from the origin.
  package struct Task: Sendable {
    package var name: String
    package var start: UInt64
    package var end: UInt64
    package var failed: Bool
  }

  /// The process's result.
  package var result: ProcessResult
  /// ns from the group's origin to the spawn (or its first event).
  package var start: UInt64
  /// ns from the group's origin to the reap (or its last event).
  package var end: UInt64
  /// Its phases, in order, covering start to end.
  package var spans: [Span]
  /// What happened at an instant, in event order.
  package var markers: [Marker]
  /// Its tasks, by start.
  package var tasks: [Task]

  /// The groups of a scenario's result, each on its own time axis (a 10 ms crash beside a
  /// 5 s hang would otherwise be invisible). Processes without a recorded timeline get a
  /// plain span of their measured duration.
  package static func groups(_ result: ScenarioResult) -> [LaunchGroup] {
    var runs: [[ProcessResult]] = []
    for process in result.processes {
      if let last = runs.last?.last, last.launch == process.launch, last.iteration == process.iteration {
        runs[runs.count - 1].append(process)
      } else {
        runs.append([process])
      }
    }
    return runs.map { processes in
      let origin = processes.compactMap { $0.timeline?.spawned }.min() ?? 0
      let rows = processes.map { LaunchRow(process: $0, origin: origin) }
      return LaunchGroup(
        launch: processes[0].launch, iteration: processes[0].iteration, rows: rows,
        nanoseconds: max(1, rows.map(\.end).max() ?? 1))
    }
  }

  /// A process's row, its times measured from `origin`.
  init(process: ProcessResult, origin: UInt64) {
    result = process
    guard let timeline = process.timeline else {
      start = 0
      end = UInt64(max(0, process.durationMilliseconds) * 1e6)
      spans = [Span(phase: .starting, start: 0, end: end)]
      markers = []
      tasks = []
      return
    }
    // Events a target wrote before the harness's clock read, or after it reaped, stay in view.
    let events = timeline.events
    let first = min(timeline.spawned, events.map(\.t).min() ?? timeline.spawned)
    let last = max(timeline.reaped, events.map(\.t).max() ?? timeline.reaped)
    let offset = { (time: UInt64) -> UInt64 in time >= origin ? time - origin : 0 }
    start = offset(first)
    end = max(offset(last), start + 1)
    spans = Self.phases(events, start: start, end: end, offset: offset)
    markers = events.compactMap { event in
      Self.marker(event, offset: offset, frames: timeline.crashFrames, task: Self.runningTask(at: event, in: events))
    }
    tasks = timeline.taskRuns.map {
      Task(name: $0.name, start: offset($0.start), end: offset($0.end), failed: $0.failed)
    }
  }

  private static func phases(
    _ events: [ProcessTimeline.Event], start: UInt64, end: UInt64, offset: (UInt64) -> UInt64
  ) -> [Span] {
    let boundaries: [(String, Phase)] = [
      ("launch", .launching), ("protect_enter", .repair), ("relaunch", .relaunch),
      ("launching_finished", .afterLaunch),
    ]
    var changes: [(UInt64, Phase)] = [(start, .starting)]
    for (name, phase) in boundaries {
      if let event = events.first(where: { $0.event == name }) { changes.append((offset(event.t), phase)) }
    }
    changes.sort { $0.0 < $1.0 }
    var spans: [Span] = []
    for (index, change) in changes.enumerated() {
      let until = index + 1 < changes.count ? changes[index + 1].0 : end
      guard until > change.0 || index + 1 == changes.count else { continue }
      spans.append(Span(phase: change.1, start: change.0, end: max(until, change.0)))
    }
    return spans
  }
}
