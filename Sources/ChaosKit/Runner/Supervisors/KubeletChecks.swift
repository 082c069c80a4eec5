import Foundation

/// The kubelet's expectations (`probes:`, `restart_delay:`), judged from the `probe` and
/// `supervisor` events the harness wrote while it played the kubelet.
enum KubeletChecks {
  static func check(_ expect: Expectation, _ seen: Observation) -> [ScenarioFailure] {
    var failures: [ScenarioFailure] = []
    if let delay = expect.restartDelay {
      let saw = seen.restartDelay.map(milliseconds) ?? "no restart (the container's first start)"
      if seen.restartDelay.map({ abs($0 - delay) > 0.0005 }) ?? true {
        failures.append(.expected(.restartDelay, milliseconds(delay), saw: saw))
      }
    }
    guard let probes = expect.probes else { return failures }
    let verdicts = Dictionary(
      seen.events.filter { $0.name == "probe" && $0["source"]?.string == "kubelet" }
        .compactMap { event -> (String, TargetEvent)? in
          guard let kind = event["kind"]?.string, let result = event["result"]?.string,
            ["passed", "failed", "ready"].contains(result)
          else { return nil }
          return ("\(kind):\(result)", event)
        }, uniquingKeysWith: { first, _ in first })
    if let startup = probes.startup {
      if let failed = verdicts["startup:failed"] {
        if startup {
          failures.append(.expected(.probesStartup, "passed", saw: "failed: \(killed("startup", failed, seen))"))
        }
      } else if verdicts["startup:passed"] != nil {
        if !startup { failures.append(.expected(.probesStartup, "failed", saw: "passed")) }
      } else {
        failures.append(
          .expected(.probesStartup, startup ? "passed" : "failed", saw: "no verdict (the container ended first)"))
      }
    }
    if let liveness = probes.liveness {
      let failed = verdicts["liveness:failed"]
      if let failed, liveness {
        failures.append(.expected(.probesLiveness, "passed", saw: "failed: \(killed("liveness", failed, seen))"))
      } else if failed == nil, !liveness {
        failures.append(.expected(.probesLiveness, "failed", saw: "it never fail the container"))
      }
    }
    if let readiness = probes.readiness, (verdicts["readiness:ready"] != nil) != readiness {
      failures.append(
        .expected(.probesReadiness, readiness ? "ready" : "not_ready", saw: readiness ? "never ready" : "ready"))
    }
    return failures
  }

  /// "the startup probe (failure_threshold 3, period 100 ms: a 200 ms budget, scaled) killed the
  /// container 210 ms after the launch began, in protect mode: its repair outlived the probe's budget".
  private static func killed(_ kind: String, _ verdict: TargetEvent, _ seen: Observation) -> String {
    let threshold = verdict["failure_threshold"]?.int.map(String.init) ?? "?"
    let period = verdict["period_ms"]?.int.map(String.init) ?? "?"
    let budget = verdict["budget_ms"]?.int.map(String.init) ?? "?"
    let start = seen.events.first { $0.name == "launch" }?.time
    let after = start.map { " \((verdict.time &- $0) / 1_000_000) ms after the launch began" } ?? ""
    let mode = seen.launchEvent?["mode"]?.string
    let protecting = mode == "protect" ? ", in protect mode: its repair outlived the probe's budget" : ""
    return "the \(kind) probe (failure_threshold \(threshold), period \(period) ms: a \(budget) ms budget,"
      + " scaled) killed the container\(after)\(protecting)"
  }

  private static func milliseconds(_ seconds: Double) -> String {
    "\(Int((seconds * 1000).rounded())) ms"
  }
}
