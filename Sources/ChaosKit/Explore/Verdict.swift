import Foundation

/// What re-running a shrunk divergence says it is. A divergence that any re-run reproduces is a
/// bug, intermittent or not (Jepsen's rule: a violation seen once is a violation); only one that
/// no re-run reproduces is noise ("flaky").
package enum Verdict: Sendable, Equatable {
  /// Every re-run failed the same way.
  case confirmed(reruns: Int)
  /// Some re-runs failed the same way, not all: a real intermittent bug.
  case intermittent(reproduced: Int, reruns: Int)
  /// No re-run failed the same way.
  case flaky(reruns: Int)

  /// The verdict of `reproduced` same-way failures in `reruns` re-runs.
  package init(reproduced: Int, reruns: Int) {
    if reruns > 0, reproduced >= reruns {
      self = .confirmed(reruns: reruns)
    } else if reproduced > 0 {
      self = .intermittent(reproduced: reproduced, reruns: reruns)
    } else {
      self = .flaky(reruns: reruns)
    }
  }

  /// Whether it is a bug: written as a failing scenario, exit 1.
  package var isBug: Bool {
    if case .flaky = self { return false }
    return true
  }

  /// `chaos explore`'s exit status for it: 1 for a bug, 3 for flaky (1 with `--strict-flaky`).
  package func exitStatus(strictFlaky: Bool) -> Int32 { isBug || strictFlaky ? 1 : 3 }

  /// "reproduced in k of n".
  package var summary: String {
    switch self {
    case .confirmed(let reruns): "reproduced in \(reruns) of \(reruns)"
    case .intermittent(let reproduced, let reruns): "reproduced in \(reproduced) of \(reruns)"
    case .flaky(let reruns): "reproduced in 0 of \(reruns)"
    }
  }

  /// The bug's chance per run, taken low: the one-sided 95 % Wilson score lower bound of k/n
  /// (1 when confirmed, 0 when flaky). A rate seen in a few re-runs is uncertain: 1 of 3 may
  /// be 1 of 10, so the written scenario is repeated for the rate the re-runs cannot rule out.
  package var rateLowerBound: Double {
    switch self {
    case .confirmed: return 1
    case .flaky: return 0
    case .intermittent(let reproduced, let reruns):
      let n = Double(reruns)
      let rate = Double(reproduced) / n
      let z = 1.645
      let center = rate + z * z / (2 * n)
      let margin = z * (rate * (1 - rate) / n + z * z / (4 * n * n)).squareRoot()
      return max(0, (center - margin) / (1 + z * z / n))
    }
  }

  /// How many times the written scenario repeats its divergent launch (or itself) so that it
  /// fails with probability at least `1 - miss` at the rate `rateLowerBound`: the smallest R
  /// with (1 - rate)^R ≤ miss, at most `cap`. 1 when confirmed (it failed every re-run) or flaky
  /// (not written as a failure).
  package func rounds(miss: Double = 0.05, cap: Int = 60) -> Int {
    guard case .intermittent = self else { return 1 }
    let rate = rateLowerBound
    guard rate > 0 else { return cap }
    let needed = (log(miss) / log(1 - rate)).rounded(.up)
    return max(2, min(cap, Int(needed)))
  }

  /// The chance that a scenario repeated `rounds` times fails, at the rate `rateLowerBound`.
  package func failureProbability(rounds: Int) -> Double {
    1 - pow(1 - rateLowerBound, Double(max(1, rounds)))
  }
}

extension ExplorationSequence {
  /// The sequence written so that an intermittent divergence at launch `divergent` (from 1)
  /// fails reliably: when that launch leaves the model where it found it (a fixed point: its
  /// prediction and everything after stay the same), the launch gets `repeat: rounds`;
  /// otherwise the whole sequence is written `rounds` times in a row, the model predicting each
  /// round from where the last one left the state. Nil when neither is predictable.
  package func repeated(divergent: Int, rounds: Int) -> ExplorationSequence? {
    guard rounds > 1, steps.indices.contains(divergent - 1) else { return nil }
    var model = ContractModel()
    for step in steps[..<(divergent - 1)] { _ = model.step(step, app: app) }
    let before = model
    let step = steps[divergent - 1]
    let first = model.step(step, app: app)
    if model == before, model.admits(step, app: app), model.step(step, app: app) == first, model == before {
      var repeated = self
      repeated.steps[divergent - 1].repeatCount = rounds
      return repeated
    }
    var concatenated = self
    concatenated.steps = Array(Array(repeating: steps, count: rounds).joined())
    return concatenated.isPredictable ? concatenated : nil
  }
}
