import Foundation

/// One scenario's part of an HTML report: its status, messages, the timeline of its launches
/// and a table of its processes, failing expectations on the process they belong to with links
/// to that process's artifacts (relative to the report, so they follow a CI download).
package enum ScenarioSectionHTML {
  /// The `<section>`; `number` makes its anchors unique in the report, `reportDirectory` is
  /// where the report is written.
  package static func render(_ result: ScenarioResult, number: Int, reportDirectory: String) -> String {
    let groups = LaunchRow.groups(result)
    let anchor = { (process: ProcessResult) in
      "s\(number)-l\(process.launch)-r\(process.iteration)-p\(process.process)"
    }
    let mark = result.passed ? "✓" : result.status == .failed ? "✗" : result.isSkipped ? "-" : "!"
    let launches = Set(result.processes.map(\.launch)).count
    let status = result.statusText
    var html = """
      <section class="scenario \(status)" id="s\(number)" data-status="\(status)" \
      data-path="\(Markup.escape(result.path))"><details\(result.passed || result.isSkipped ? "" : " open")><summary>\
      <span class="\(status)">\(mark) \(status)</span> \(Markup.escape(result.group))/\
      \(Markup.escape(result.name)) <small>(\(launches) launches, \(result.processes.count) processes, \
      \(String(format: "%.2f", result.seconds)) s)</small></summary>
      <p><code>\(Markup.escape(result.path))</code></p>
      """
    if result.status == .failed {
      html += "<p class=\"note\">A scenario stops at its first failing launch: the launches after it did not run.</p>"
    }
    if result.status == .error {
      // A skip is not a failure: its reason is drawn apart from the red of what went wrong.
      let style = result.isSkipped ? "skip" : "failure"
      html += result.messages.map { "<pre class=\"\(style)\">\(Markup.escape($0))</pre>" }.joined()
    }
    if !groups.isEmpty {
      html += TimelineSVG.render(groups, anchor: anchor)
      html += processTable(result, anchor: anchor, reportDirectory: reportDirectory)
    }
    return html + "</details></section>\n"
  }

  private static func processTable(
    _ result: ScenarioResult, anchor: (ProcessResult) -> String, reportDirectory: String
  ) -> String {
    var html = """
      <table class="processes"><tr><th>launch</th><th>pid</th><th>saw</th><th>ended</th><th>took</th>\
      <th>what happened</th></tr>
      """
    for process in result.processes {
      let failed = !process.failures.isEmpty
      var launch = "\(process.launch)"
      if process.iteration > 1 { launch += " r\(process.iteration)" }
      if process.process > 1 || result.processes.contains(where: { $0.launch == process.launch && $0.process > 1 }) {
        launch += " p\(process.process)"
      }
      let saw = [process.count.map { "count \($0)" }, process.mode?.rawValue, process.relaunched ? "relaunched" : nil]
        .compactMap { $0 }.joined(separator: ", ")
      html += """
        <tr id="\(anchor(process))" class="\(failed ? "failing" : "ok")" data-launch="\(process.launch)" \
        data-process="\(process.process)"><td>\(launch)</td><td>\(process.pid)</td><td>\(Markup.escape(saw))</td>\
        <td>\(Markup.escape(process.endText)) (\(Markup.escape(process.outcomeText)))</td>\
        <td>\(String(format: "%.1f", process.durationMilliseconds)) ms</td><td>\(happenings(process, result, reportDirectory))</td></tr>
        """
    }
    return html + "</table>\n"
  }

  private static func happenings(_ process: ProcessResult, _ result: ScenarioResult, _ reportDirectory: String)
    -> String
  {
    var parts: [String] = []
    if let timeline = process.timeline {
      if let crash = timeline.events.last(where: { $0.event == "crash" }) {
        let signal = crash.text("signal_name") ?? crash.text("signal") ?? "?"
        let task = LaunchRow.runningTask(at: crash, in: timeline.events).map { " in task \($0)" } ?? ""
        let thread = task + (crash.text("thread_name").map { " on thread \($0)" } ?? "")
        var text = "crash: \(Markup.escape(signal + thread))"
        if let latency = process.handlerLatencyMicroseconds { text += String(format: " (handler %.1f µs)", latency) }
        if !timeline.crashFrames.isEmpty {
          text +=
            "<ol class=\"frames\">" + timeline.crashFrames.map { "<li>\(Markup.escape($0))</li>" }.joined() + "</ol>"
        }
        parts.append("<div class=\"crash\">\(text)</div>")
      }
      let fired = timeline.events.filter { $0.event == "failpoint" }.map {
        "\($0.text("name") ?? "?")=\($0.text("action") ?? "?")"
      }
      if !fired.isEmpty {
        parts.append("failpoints fired: <code>\(Markup.escape(fired.joined(separator: ", ")))</code>")
      }
      let supervisor = timeline.events.filter { $0.event == "supervisor" }.map {
        "\($0.text("action") ?? "?") (\($0.text("reason") ?? ""))"
      }
      if !supervisor.isEmpty { parts.append("supervisor: \(Markup.escape(supervisor.joined(separator: ", ")))") }
      if let hang = timeline.events.first(where: { $0.event == "launch_hang" }) {
        parts.append("launch deadline passed in the \(Markup.escape(hang.text("phase") ?? "launch"))")
      }
    }
    for request in process.requests ?? [] {
      let answer = request.status.map { "status \($0)" } ?? request.end ?? ""
      parts.append(
        "<span class=\"\(request.ok ? "ok-text" : "bad")\">request \(request.index) \(Markup.escape(request.label)): "
          + "\(Markup.escape(answer))\(request.failure.map { " — " + Markup.escape($0) } ?? "")</span>")
    }
    if process.stoppedByHarness { parts.append("stopped by the harness after it finished launching") }
    for failure in process.failures {
      parts.append("<pre class=\"failure\">\(Markup.escape(failure.message))</pre>")
    }
    if result.artifacts != nil {
      let folder = RelativePath.of(process.artifacts, from: reportDirectory)
      let links = ["stdout.txt", "stderr.txt", "events.ndjson"].map { file in
        "<a href=\"\(Markup.escape(folder + "/" + file))\">\(file)</a>"
      }
      parts.append("artifacts: " + links.joined(separator: " · "))
    }
    return parts.joined(separator: "<br>")
  }
}
