import Foundation

/// The human-readable reports: a live line per scenario, a summary table, and the Markdown
/// summary for GitHub Actions' step summary.
package enum SummaryReport {
  /// One line for a finished scenario: `✓ counting/name (3 launches, 0.4 s) [5/40]`, or
  /// `(3 launches (6 starts), …)` with `repeat:`.
  package static func line(_ result: ScenarioResult, done: Int, total: Int, color: Bool) -> String {
    let (mark, code) =
      switch result.status {
      case .passed: ("✓", "32")
      case .failed: ("✗", "31")
      case .error: result.isSkipped ? ("-", "36") : ("!", "33")
      }
    let what =
      (result.skipped.map { "skipped: needs \($0.privilege)" } ?? launchesText(result))
      + (result.retried == nil ? "" : ", ran again after a machine failure")
    let text =
      "\(mark) \(result.group)/\(URL(fileURLWithPath: result.path).deletingPathExtension().lastPathComponent) — \(result.name) (\(what), \(String(format: "%.2f", result.seconds)) s) [\(done)/\(total)]"
    return color ? "\u{1B}[\(code)m\(text)\u{1B}[0m" : text
  }

  /// `3 launches`, or `3 launches (6 starts)` when `repeat:` started some more than once: a
  /// start is one repetition of a launch (its `parallel:` processes together).
  package static func launchesText(_ result: ScenarioResult) -> String {
    let launches = Set(result.processes.map(\.launch)).count
    let starts = Set(result.processes.map { "\($0.launch).\($0.iteration)" }).count
    return "\(launches) launch\(launches == 1 ? "" : "es")" + (starts != launches ? " (\(starts) starts)" : "")
  }

  /// Latency, every failure message, then the totals as the closing line
  /// (`scenarios: N passed, N failed`, the form CI log readers look for, then `, N skipped`
  /// when some needed a privilege the run lacks).
  package static func table(_ results: [ScenarioResult]) -> String {
    let passed = results.filter(\.passed).count
    let skipped = results.filter(\.isSkipped).count
    let errors = results.filter { $0.status == .error }.count - skipped
    let processes = results.reduce(0) { $0 + $1.processes.count }
    var lines = [""]
    let latencies = results.flatMap(\.processes).compactMap(\.handlerLatencyMicroseconds)
    if !latencies.isEmpty {
      let sorted = latencies.sorted()
      func percentile(_ p: Double) -> String {
        String(format: "%.1f", sorted[min(sorted.count - 1, Int((Double(sorted.count) * p).rounded(.up)) - 1)])
      }
      lines.append(
        "crash handler latency (µs): n=\(sorted.count) p50=\(percentile(0.5)) p99=\(percentile(0.99)) max=\(percentile(1))"
      )
    }
    for result in results where !result.passed {
      lines.append("")
      lines.append("\(result.statusText.uppercased()): \(result.name)")
      lines += result.messages.map { "  " + $0.replacingOccurrences(of: "\n", with: "\n  ") }
    }
    for result in results {
      guard let reason = result.retried else { continue }
      lines.append("")
      lines.append("RAN AGAIN (\(result.statusText)): \(result.name)")
      lines.append("  the first attempt failed in the machine, not in the target: \(reason)")
    }
    lines.append("")
    lines.append("processes: \(processes)   scenario errors (could not run): \(errors)   skipped: \(skipped)")
    let skippedText = skipped > 0 ? ", \(skipped) skipped (a privilege this run lacks)" : ""
    lines.append("scenarios: \(passed) passed, \(results.count - passed - skipped) failed\(skippedText)")
    return lines.joined(separator: "\n")
  }

  /// GitHub-flavoured Markdown.
  package static func markdown(_ results: [ScenarioResult]) -> String {
    let passed = results.filter(\.passed).count
    let skipped = results.filter(\.isSkipped).count
    var text =
      "## chaos run: \(passed)/\(results.count) scenarios passed\(skipped > 0 ? ", \(skipped) skipped" : "")\n\n| | group | scenario | launches | seconds |\n|---|---|---|---|---|\n"
    for result in results {
      let mark = result.passed ? "✅" : result.isSkipped ? "⏭️" : (result.status == .failed ? "❌" : "⚠️")
      text +=
        "| \(mark) | \(result.group) | \(result.name) | \(Set(result.processes.map(\.launch)).count) | \(String(format: "%.2f", result.seconds)) |\n"
    }
    for result in results where !result.passed {
      text +=
        "\n<details><summary>\(result.name)</summary>\n\n```\n\(result.messages.joined(separator: "\n"))\n```\n</details>\n"
    }
    return text
  }
}
