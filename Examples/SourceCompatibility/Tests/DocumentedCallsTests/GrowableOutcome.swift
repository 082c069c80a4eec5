import ChaosKit

// Issue 53: `Outcome` is a struct that can grow; 0.2.0's uses of the enum still compile.

/// What a tool that reads results does with an outcome, then and now.
func describeOutcome(_ outcome: Outcome?) -> String {
  switch outcome {
  case .crash?, .oomKilled?: "died"
  case .finished?: "finished"
  default: outcome?.rawValue ?? "none"
  }
}

/// The list of outcomes, and the spelling of one.
func knownOutcomes() -> [String] {
  _ = Outcome(rawValue: "oom_killed") == .oomKilled
  return Outcome.allCases.map(\.rawValue) + ["\(Outcome.timeout)"]
}
