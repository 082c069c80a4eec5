import Foundation

/// `chaos run --html`: one self-contained page with the run's summary (counts, duration, seed,
/// targets, the crash handler's latency distribution) and every scenario's timeline.
package enum HTMLReport {
  /// What the run was, beyond its results.
  package struct Context: Sendable {
    /// Wall time of the whole run, seconds.
    package var seconds: Double
    /// `--seed`, if given.
    package var seed: UInt64?
    /// The targets the scenarios ran (the override, or each scenario's own).
    package var targets: [String]
    /// Where the page is written (its links to artifacts are relative to this folder).
    package var reportDirectory: String
    /// The command line, as typed.
    package var command: String

    /// A context.
    package init(seconds: Double, seed: UInt64?, targets: [String], reportDirectory: String, command: String) {
      self.seconds = seconds
      self.seed = seed
      self.targets = targets
      self.reportDirectory = reportDirectory
      self.command = command
    }
  }

  /// The HTML document. Results recorded with `RunOptions.recordsTimeline` get their phases
  /// and markers; others a plain span per process.
  package static func render(_ results: [ScenarioResult], context: Context) -> String {
    let passed = results.filter(\.passed).count
    let failed = results.filter { $0.status == .failed }.count
    let skipped = results.filter(\.isSkipped).count
    let errors = results.filter { $0.status == .error }.count - skipped
    let processes = results.reduce(0) { $0 + $1.processes.count }
    let latencies = results.flatMap(\.processes).compactMap(\.handlerLatencyMicroseconds)
    // Delivery means something only for a fault that raises at once (not a hang ended by a deadline).
    let delivery = results.flatMap(\.processes).filter { process in
      let action = process.timeline?.events.last { $0.event == "failpoint" }?.text("action") ?? ""
      return !action.hasPrefix("hang") && !action.hasPrefix("sleep")
    }.compactMap(\.deliveryLatencyMicroseconds)
    var body = """
      <h1>chaos run: <span class="\(failed + errors == 0 ? "passed" : "failed")">\(passed) passed, \(failed) failed, \
      \(errors) errors, \(skipped) skipped</span></h1>
      <table class="summary">
      <tr><td>scenarios</td><td id="counts" data-passed="\(passed)" data-failed="\(failed)" data-errors="\(errors)" \
      data-skipped="\(skipped)">\(results.count) (\(passed) passed, \(failed) failed, \(errors) could not run, \
      \(skipped) skipped for a privilege this run lacks)</td></tr>
      <tr><td>processes</td><td>\(processes)</td></tr>
      <tr><td>duration</td><td>\(String(format: "%.1f", context.seconds)) s</td></tr>
      <tr><td>seed</td><td>\(context.seed.map(String.init) ?? "none (probabilistic failpoints unseeded)")</td></tr>
      <tr><td>target</td><td>\(context.targets.map { "<code>\(Markup.escape($0))</code>" }.joined(separator: "<br>"))</td></tr>
      <tr><td>command</td><td><code>\(Markup.escape(context.command))</code></td></tr>
      <tr><td>crash handler latency<br><small>entry → record written</small></td>\
      <td>\(HTMLPage.histogram(latencies, unit: "µs", empty: "no crash records"))</td></tr>
      <tr><td>fault delivery<br><small>failpoint → handler entry</small></td>\
      <td>\(HTMLPage.histogram(delivery, unit: "µs", empty: "no crash at a failpoint's immediate fault"))</td></tr>
      </table>
      \(HTMLPage.legend)
      <div class="toolbar"><button data-action="failing">only failing</button>\
      <button data-action="expand">expand all</button><button data-action="collapse">collapse all</button></div>

      """
    // Failures first: they are what a reader of a red CI job came for; then skips, then passes.
    let rank = { (result: ScenarioResult) in result.passed ? 2 : result.isSkipped ? 1 : 0 }
    let ordered = results.enumerated().sorted { lhs, rhs in
      (rank(lhs.element), lhs.offset) < (rank(rhs.element), rhs.offset)
    }
    for (number, result) in ordered {
      body += ScenarioSectionHTML.render(result, number: number + 1, reportDirectory: context.reportDirectory)
    }
    return HTMLPage.document(title: "chaos run: \(passed)/\(results.count) passed", body: body)
  }
}
