/// What a launch row marks at an instant, read from one event: failpoints, the crash (with the
/// task it interrupted and its first frames), the launch deadline, supervisor signals, notify
/// lines, requests, stops, state problems and waits for a dependency.
extension LaunchRow {
  /// The task a crash interrupted: one started and not ended before it, on the crashing thread
  /// when several were running (`worker-0` runs on `launch-worker-0`).
  static func runningTask(at crash: ProcessTimeline.Event, in events: [ProcessTimeline.Event]) -> String? {
    guard crash.event == "crash" else { return nil }
    var running: [(task: String, thread: String)] = []
    for event in events where event.t <= crash.t {
      guard let task = event.text("task") else { continue }
      if event.event == "task_start" {
        running.append((task, event.text("thread") ?? ""))
      } else if event.event == "task_end" || event.event == "task_failed" {
        running.removeAll { $0.task == task }
      }
    }
    let thread = crash.text("thread_name") ?? ""
    return (running.last { !$0.thread.isEmpty && thread.hasSuffix($0.thread) } ?? running.last)?.task
  }

  static func marker(
    _ event: ProcessTimeline.Event, offset: (UInt64) -> UInt64, frames: [String], task: String?
  ) -> Marker? {
    let time = offset(event.t)
    func marker(_ kind: String, _ label: String, _ detail: String, bad: Bool = false) -> Marker {
      Marker(kind: kind, time: time, label: label, detail: detail, bad: bad)
    }
    switch event.event {
    case "failpoint":
      let text = "\(event.text("name") ?? "?")=\(event.text("action") ?? "?")"
      return marker("failpoint", text, "failpoint fired: \(text)")
    case "crash":
      let signal = event.text("signal_name") ?? event.text("signal").map { "signal \($0)" } ?? "crash"
      let thread = event.text("thread_name").map { " on thread \($0)" } ?? ""
      let cause = event.text("cause").map { " (\($0))" } ?? ""
      let top = task.map { " in task \($0)" } ?? frames.first.map { " in \($0)" } ?? ""
      let inTask = task.map { " in task \($0)" } ?? ""
      var detail = "crash: \(signal)\(cause)\(inTask)\(thread)"
      if event.text("after_launch") == "true" { detail += ", after launching finished" }
      if !frames.isEmpty { detail += "\n" + frames.map { "  " + $0 }.joined(separator: "\n") }
      return marker("crash", signal + top, detail, bad: true)
    case "launch_hang":
      let deadline = event.text("deadline_ms").map { " (\($0) ms)" } ?? ""
      let phase = event.text("phase") ?? "launch"
      return marker("deadline", "deadline: \(phase)", "launch deadline\(deadline) passed in the \(phase)", bad: true)
    case "supervisor":
      let action = event.text("action") ?? "?"
      let reason = event.text("reason").map { " (\($0))" } ?? ""
      let who = event.text("source") ?? "supervisor"
      if action == "restart" {
        let delay = event.text("delay_ms").map { " after \($0) ms" } ?? ""
        return marker("supervisor", "restart\(delay)", "\(who) restarted the container\(delay)\(reason)")
      }
      return marker("supervisor", action + reason, "\(who) sent \(action)\(reason)", bad: action != "SIGTERM")
    case "probe":
      // The kubelet's verdicts; single attempts would crowd the row.
      guard let result = event.text("result"), ["passed", "failed", "ready", "not_ready"].contains(result) else {
        return nil
      }
      let kind = event.text("kind") ?? "?"
      let budget = event.text("budget_ms").map { " (budget \($0) ms)" } ?? ""
      return marker("notify", "\(kind) \(result)", "kubelet: \(kind) probe \(result)\(budget)", bad: result == "failed")
    case "stop_signal":
      let owner = event.text("owner") ?? "?"
      return marker("stop", "SIGTERM: \(owner)", "SIGTERM owner \(owner): \(event.text("advice") ?? "")")
    case "notify":
      let message = event.text("message") ?? ""
      return marker("notify", message, "sd_notify: \(message)")
    case "request":
      let index = event.text("index") ?? "?"
      let ok = event.text("ok") == "true"
      let answer = event.text("status").map { "status \($0)" } ?? event.text("end") ?? ""
      let failure = event.text("failure").map { ": \($0)" } ?? ""
      return marker(
        "request", "request \(index) \(ok ? "ok" : "failed")", "request \(index): \(answer)\(failure)", bad: !ok)
    case "stop_requested", "graceful_shutdown":
      return marker("stop", "stop requested", "\(event.event): a stop was recorded (not counted)")
    case "state_problem":
      let kind = event.text("kind") ?? "problem"
      return marker("problem", "state \(kind)", "state problem: \(kind) \(event.text("detail") ?? "")", bad: true)
    case "protect_exhausted":
      let action = event.text("action") ?? ""
      return marker("problem", "levels exhausted", "every protect level attempted: \(action)", bad: true)
    case "task_failed":
      let name = event.text("task") ?? "?"
      return marker("task", "\(name) failed", "task \(name) failed: \(event.text("reason") ?? "")", bad: true)
    case "dependency":
      // The harness's listener (`dependency:`) going down or coming back.
      let name = event.text("dependency") ?? "dependency"
      let state = event.text("state") ?? "?"
      let port = event.text("port").map { " on port \($0)" } ?? ""
      let lasting = event.text("down_for_ms").map { " for \($0) ms" } ?? ""
      return marker("supervisor", "\(name) \(state)", "harness: dependency \(name) \(state)\(lasting)\(port)")
    case "dependency_wait", "dependency_answered", "dependency_failed":
      let name = event.text("dependency") ?? "dependency"
      let waited = event.text("waited_ms").map { " after \($0) ms" } ?? ""
      let label =
        switch event.event {
        case "dependency_wait": "waiting for \(name)"
        case "dependency_answered": "\(name) answered\(waited)"
        default: "\(name) did not answer\(waited)"
        }
      return marker("notify", label, "\(label): an outage here is not a launch crash")
    case "uncounted_exit":
      return marker("stop", "clean exit", "uncounted exit: \(event.text("reason") ?? "")")
    default:
      return nil
    }
  }
}
