import Foundation

/// `chaos explore --html`: the run's totals, every generated sequence's verdict, and for a
/// divergence the shrinking steps, the minimal scenario, the model's prediction beside what
/// happened at the divergent launch, and that launch's run drawn as `chaos run --html` draws it.
package enum ExploreHTMLReport {
  /// The HTML document; `target` and `command` describe the run.
  package static func render(_ report: Explorer.Report, target: String, command: String) -> String {
    let failed = report.failure != nil
    var body = """
      <h1>chaos explore: <span class="\(failed ? "failed" : "passed")">\(failed ? "a divergence found" : "no divergence")\
      </span></h1>
      <table class="summary">
      <tr><td>sequences</td><td id="counts" data-sequences="\(report.sequences)" data-failed="\(failed ? 1 : 0)">\
      \(report.sequences) (\(report.launches) processes)</td></tr>
      <tr><td>duration</td><td>\(String(format: "%.1f", report.seconds)) s</td></tr>
      <tr><td>seed</td><td>\(report.seed)</td></tr>
      <tr><td>target</td><td><code>\(Markup.escape(target))</code></td></tr>
      <tr><td>command</td><td><code>\(Markup.escape(command))</code></td></tr>
      <tr><td>protect mode</td><td>\(report.protectLaunches) launches; levels reached: \
      \(report.levelsReached.sorted().map(String.init).joined(separator: ", "))</td></tr>
      <tr><td>shared launches</td><td>\(report.sharedLaunches) (several processes on one state directory)</td></tr>
      </table>

      """
    if let failure = report.failure { body += divergence(failure) }
    body += "<h2>Sequences</h2>\n<table class=\"sequences\"><tr><th>#</th><th>seed</th><th>verdict</th>"
    body += "<th>launches</th><th>what it did</th></tr>\n"
    for verdict in report.verdicts.sorted(by: { $0.index < $1.index }) {
      let mark =
        verdict.passed ? "<span class=\"passed\">✓ as predicted</span>" : "<span class=\"failed\">✗ diverged</span>"
      let difference = verdict.difference.map { "<br><span class=\"bad\">\(Markup.escape($0))</span>" } ?? ""
      body += """
        <tr class="\(verdict.passed ? "ok" : "failing")" data-verdict="\(verdict.passed ? "passed" : "failed")">\
        <td>\(verdict.index)</td><td>\(verdict.seed)</td><td>\(mark)</td><td>\(verdict.launches)</td>\
        <td><code>\(Markup.escape(verdict.summary))</code>\(difference)</td></tr>

        """
    }
    body += "</table>\n"
    return HTMLPage.document(title: "chaos explore: seed \(report.seed)", body: body)
  }

  private static func divergence(_ failure: Explorer.Report.Failure) -> String {
    var html = """
      <h2 class="bad">Divergence: \(Markup.escape(failure.firstDifference))</h2>
      <p>Found after \(String(format: "%.1f", failure.secondsToFind)) s (sequence seed \(failure.sequenceSeed)); \
      shrunk from \(failure.originalLaunches) to \(failure.shrunkLaunches) launches in \
      \(String(format: "%.1f", failure.secondsToShrink)) s; \(failure.confirmed ? "confirmed by re-running the written file" : "<span class=\"bad\">not confirmed on re-run (flaky?)</span>"). \
      Written to <code>\(Markup.escape(failure.path))</code>.</p>

      """
    if let launch = failure.divergentLaunch, !failure.comparison.isEmpty {
      html += """
        <h2>Launch \(launch): the model's prediction beside what happened</h2>
        <table class="comparison"><tr><th>field</th><th>predicted</th><th>observed</th></tr>

        """
      for row in failure.comparison {
        html += """
          <tr class="\(row.agrees ? "ok" : "failing")" data-field="\(Markup.escape(row.field))"><td>\(Markup.escape(row.field))</td>\
          <td>\(Markup.escape(row.predicted))</td><td>\(Markup.escape(row.observed))\(row.agrees ? "" : " ✗")</td></tr>

          """
      }
      html += "</table>\n"
    }
    html += "<h2>The minimal scenario</h2>\n<pre class=\"scenario-text\">\(Markup.escape(failure.scenarioText))</pre>\n"
    if let run = failure.run {
      html += "<h2>Its run</h2>\n" + HTMLPage.legend
      html += ScenarioSectionHTML.render(run, number: 1, reportDirectory: "/")
    }
    html += "<h2>Shrinking: \(failure.shrinkSteps.count) candidates tried</h2>\n"
    html += "<table class=\"shrink\"><tr><th>#</th><th>launches</th><th>kept</th><th>candidate</th><th>it</th></tr>\n"
    for step in failure.shrinkSteps {
      html += """
        <tr class="\(step.kept ? "failing" : "ok")"><td>\(step.attempt)</td><td>\(step.launches)</td>\
        <td>\(step.kept ? "kept: fails the same way" : "dropped")</td><td><code>\(Markup.escape(step.summary))</code></td>\
        <td>\(Markup.escape(step.verdict))</td></tr>

        """
    }
    return html + "</table>\n"
  }
}
