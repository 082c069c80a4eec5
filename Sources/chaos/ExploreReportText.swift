import ChaosKit
import Foundation

/// The end-of-run text: totals, the coverage table, the failure.
enum ExploreReportText {
  /// Where the time went (`CHAOS_PROFILE=1`): each part's seconds summed over the jobs.
  static func profile(_ parts: [(part: String, seconds: Double, count: Int)], jobs: Int) -> String {
    var lines = ["Where the time went (seconds summed over \(jobs) jobs):"]
    var own = rusage()
    var children = rusage()
    getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &own)
    getrusage(__rusage_who_t(RUSAGE_CHILDREN.rawValue), &children)
    func cpu(_ usage: rusage) -> String {
      String(
        format: "%.2f s user, %.2f s sys", Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6,
        Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6)
    }
    lines.append("  CPU: the harness \(cpu(own)); its reaped children \(cpu(children))")
    for part in parts {
      lines.append(
        "  " + part.part.padding(toLength: 48, withPad: " ", startingAt: 0)
          + String(
            format: "%9.2f s  %7d  %8.3f ms each", part.seconds, part.count,
            part.seconds * 1000 / Double(max(1, part.count))))
    }
    return lines.joined(separator: "\n")
  }

  static func render(_ report: Explorer.Report) -> String {
    var lines = [
      String(
        format: "%d sequences, %d launches in %.1f s (%.1f launches/s)", report.sequences, report.launches,
        report.seconds, report.seconds > 0 ? Double(report.launches) / report.seconds : 0)
    ]
    if report.cut > 0 {
      lines[0] += "; \(report.cut) more cut when --time was up (their processes killed, not judged)"
    }
    let kinds = FaultKind.allCases.map(\.rawValue) + ["sigterm"]
    let width = max(18, (report.declaredFailpoints.map(\.count).max() ?? 0) + 2)
    lines.append("")
    lines.append("Coverage: how often each fault fired at each failpoint")
    lines.append(
      "failpoint".padding(toLength: width, withPad: " ", startingAt: 0)
        + kinds.map { String($0.prefix(6)).padding(toLength: 7, withPad: " ", startingAt: 0) }.joined()
        + "not reached")
    var missing = 0
    var possible = 0
    for point in report.declaredFailpoints {
      let row = report.coverage[point] ?? [:]
      let cells = kinds.map { kind -> String in
        // return(errno) only fails tasks: elsewhere it is not a fault, and is never drawn.
        if kind == FaultKind.ioError.rawValue && !point.hasPrefix("task.") { return "-      " }
        possible += 1
        let count = row[kind] ?? 0
        if count == 0 { missing += 1 }
        return (count == 0 ? "." : String(count)).padding(toLength: 7, withPad: " ", startingAt: 0)
      }
      let unreached = report.notReached[point].map(String.init) ?? "."
      lines.append(point.padding(toLength: width, withPad: " ", startingAt: 0) + cells.joined() + unreached)
    }
    let pointsReached = report.declaredFailpoints.filter { !(report.coverage[$0] ?? [:]).isEmpty }.count
    let kindsReached = kinds.filter { kind in report.coverage.values.contains { ($0[kind] ?? 0) > 0 } }.count
    lines.append(
      "failpoints reached: \(pointsReached) of \(report.declaredFailpoints.count); fault kinds reached: \(kindsReached) of \(kinds.count); cells never reached: \(missing) of \(possible)"
    )
    lines.append(
      "protect mode: \(report.protectLaunches) launches; levels reached: \(report.levelsReached.sorted().map(String.init).joined(separator: ", ")) \(report.customPolicy ? "(a custom policy: one more level each time a repair dies)" : "(configured up to \(report.levelsConfigured.max() ?? 1))")"
    )
    lines.append(
      "launches of several processes on one state directory: \(report.sharedLaunches); faults on a failpoint's second pass: \(report.secondPassFaults)"
    )
    if report.unseenStops > 0 {
      lines.append(
        "stops the organizer could not see, judged as hangs: \(report.unseenStops) (the SIGTERM came before it adopted "
          + "a signal owner made during the launch, or after the launch deadline fired)")
    }
    if !report.neverFired.isEmpty {
      lines.append(
        "never fired in this run: \(report.neverFired.joined(separator: ", ")) (a failpoint on a path no launch took, "
          + "such as a request handler: a --workload that requests it may reach it)")
    }
    lines += reachLines(report)
    if !report.replayed.isEmpty {
      let passed = report.replayed.filter(\.passed).count
      lines.append("failure store: replayed \(report.replayed.count) scenarios first, \(passed) passed")
      for replay in report.replayed where replay.status == .error {
        lines.append("  could not run (skipped): \(replay.path)")
      }
    }
    lines.append("")
    if let failure = report.failure {
      lines += failureLines(failure)
    } else {
      lines.append("explore: \(report.sequences) passed, 0 failed")
    }
    return lines.joined(separator: "\n")
  }

  static func failureLines(_ failure: Explorer.Report.Failure) -> [String] {
    let found =
      failure.replayed
      ? "replayed from the failure store" : "after \(String(format: "%.1f", failure.secondsToFind)) s"
    let reruns = "\(failure.rerunsFailedTheSameWay) of \(failure.reruns.count) re-runs failed the same way"
    var lines: [String] = []
    if failure.confirmed {
      lines.append("DIVERGENCE \(found): \(failure.firstDifference)")
      if !failure.replayed {
        lines.append(
          "shrunk from \(failure.originalLaunches) to \(failure.shrunkLaunches) launches in \(String(format: "%.1f", failure.secondsToShrink)) s, confirmed: \(reruns)"
        )
      }
      if failure.intermittent {
        let chance = "≥ \(Int((failure.failureProbability * 100).rounded(.down))) %"
        let repeated =
          failure.repeatRounds > 1
          ? ", written repeated \(failure.repeatRounds) times: it fails with \(chance) probability (at the 95 % lower bound of the rate)"
          : ", not repeatable without timing: it fails in about \(chance) of runs"
        lines.append("an intermittent bug, \(failure.reproduced)\(repeated)")
        for (index, verdict) in failure.reruns.enumerated() { lines.append("  re-run \(index + 1): \(verdict)") }
      }
      lines.append("written: \(failure.path)   (chaos run \(failure.path))")
      if let store = failure.storePath, !failure.replayed { lines.append("failure store: \(store)") }
      lines.append("explore: 0 passed, 1 failed")
    } else {
      lines.append("FLAKY divergence \(found): \(failure.firstDifference)")
      lines.append("not reproduced by the shrunk scenario (\(failure.shrunkLaunches) launches): \(reruns)")
      for (index, verdict) in failure.reruns.enumerated() { lines.append("  re-run \(index + 1): \(verdict)") }
      if let evidence = failure.evidence {
        lines.append(
          "evidence: \(evidence)/diverged (the run that diverged), \(evidence)/passed (a re-run that passed)")
      }
      lines.append("scenario (not a failing scenario until it reproduces): \(failure.path)")
      lines.append("explore: 0 passed, 0 failed, 1 flaky")
    }
    return lines
  }

  /// The rules of Explore.md's table, each with the launches that reached it or why none did.
  static func reachLines(_ report: Explorer.Report) -> [String] {
    guard !report.ruleReach.isEmpty else { return [] }
    return ["Rules reached (launches), Explore.md's table:"]
      + report.ruleReach.map { reach in
        "  " + reach.rule.padding(toLength: 36, withPad: " ", startingAt: 0)
          + (reach.whyNone.map { "0: \($0)" } ?? String(reach.launches))
      }
  }
}
