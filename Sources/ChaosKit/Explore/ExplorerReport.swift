import Foundation

extension Explorer {
  /// What exploration found and reached.
  public struct Report: Encodable, Sendable {
    /// The run's seed (`--seed`).
    public var seed: UInt64
    /// The shard this run explored, `i/n` (nil: the whole campaign).
    public var shard: String?
    /// Sequences run to their end and judged.
    public var sequences = 0
    /// Sequences under way when `--time` was up: cut (their processes killed), not judged.
    public var cut = 0
    /// Launches run, every process of a shared launch counted.
    public var launches = 0
    /// Wall-clock seconds of the run.
    public var seconds = 0.0
    /// failpoint → fault kind → times it fired.
    public var coverage: [String: [String: Int]] = [:]
    /// failpoint → launches where a fault was injected there but its failpoint never fired
    /// (judged as launches without that fault, never as divergences).
    public var notReached: [String: Int] = [:]
    /// Listed failpoints that never fired in the whole run (a workload may reach them).
    public var neverFired: [String] = []
    /// Launches that ran in protect mode.
    public var protectLaunches = 0
    /// The protect levels launches reached.
    public var levelsReached: Set<Int> = []
    /// The protect levels the explored configurations had.
    public var levelsConfigured: Set<Int> = []
    /// The target's policy is a custom `shouldProtect` closure: its levels are 1, 2, 3… as repairs keep dying.
    public var customPolicy = false
    /// The failpoints the target lists (`CHAOS_LIST_FAILPOINTS`).
    public var declaredFailpoints: [String] = []
    /// Launches that ran several processes at once on one state directory.
    public var sharedLaunches = 0
    /// Faults that fired only on a failpoint's second pass (a life action run twice).
    public var secondPassFaults = 0
    /// Stops the organizer could not see, judged as hangs at their failpoint: the SIGTERM came
    /// before the organizer adopted an owner made during the launch (the documented window),
    /// or after the launch deadline fired.
    public var unseenStops = 0
    /// For each rule of Explore.md's table, how many launches reached it, and why none did.
    public var ruleReach: [RuleReach] = []
    /// Launches per rule reached (`ContractRule`), gathered as sequences finish.
    package var ruleLaunches: [String: Int] = [:]
    /// The failure store's scenarios replayed before exploring, and whether each passed.
    public var replayed: [Replay] = []
    /// The first divergence, shrunk; nil when every launch matched its prediction.
    public var failure: Failure?
    /// Each sequence's verdict, in the order they finished.
    package var verdicts: [SequenceVerdict] = []

    /// A stored failure replayed first.
    public struct Replay: Encodable, Sendable {
      /// The scenario file in the store.
      public var path: String
      /// Whether it passed (the bug it recorded is fixed).
      public var passed: Bool
      /// Passed, failed, or error (it could not run, e.g. its target moved: skipped).
      public var status: ScenarioResult.Status
    }

    /// The divergence, shrunk.
    public struct Failure: Encodable, Sendable {
      /// The random seed of the sequence that diverged (0 for a replayed store entry).
      public var sequenceSeed: UInt64
      /// Its length before shrinking.
      public var originalLaunches: Int
      /// Its length after shrinking.
      public var shrunkLaunches: Int
      /// What differed first: launch, field, predicted and seen.
      public var firstDifference: String
      /// Seconds from the start of the run to the divergence.
      public var secondsToFind: Double
      /// Seconds the shrinker took.
      public var secondsToShrink: Double
      /// The scenario file written: a failing scenario in `--out` when confirmed, else the
      /// flaky case's folder's `scenario.yaml`.
      public var path: String
      /// Whether it is a bug: at least one re-run of the shrunk scenario failed the same way
      /// (every one, unless `intermittent`). Written as a failing scenario, exit 1.
      public var confirmed: Bool
      /// Each re-run of the written scenario: `failed: …` or `passed`.
      public var reruns: [String] = []
      /// How many re-runs failed the same way (what was expected first is the same).
      public var rerunsFailedTheSameWay = 0
      /// Not confirmed: the folder holding both runs' evidence (`diverged/`, `passed/`).
      public var evidence: String?
      /// It was a failure store entry, replayed before exploring.
      public var replayed = false
      /// Where it was added to (or found in) the failure store.
      public var storePath: String?
      /// Every candidate the shrinker tried, in order.
      package var shrinkSteps: [ShrinkStep] = []
      /// The written scenario file's text.
      public var scenarioText = ""
      /// The launch where the target and the model first disagreed (in the minimal scenario).
      public var divergentLaunch: Int?
      /// The model's prediction for that launch beside what its processes did.
      package var comparison: [PredictionComparison] = []
      /// The run of the minimal scenario (of the original sequence when that run passed).
      public var run: ScenarioResult?

      /// A divergence that no re-run of its shrunk scenario reproduced (noise, exit 3).
      public var flaky: Bool { !confirmed }
      /// A bug that some re-runs reproduced, not all ("reproduced in k of n"): the written
      /// scenario repeats it `repeatRounds` times so that it fails reliably.
      public var intermittent: Bool { confirmed && rerunsFailedTheSameWay < reruns.count }
      /// How many times the written scenario repeats the divergent launch (`repeat:`) or
      /// itself (rounds in a row) to fail reliably; 1 when it fails every time.
      public var repeatRounds = 1
      /// The chance that the written scenario fails on the broken library at the 95 % lower
      /// bound of the re-runs' rate (1 when every re-run failed; for an intermittent bug not
      /// repeatable without timing, that rate itself).
      public var failureProbability = 1.0
      /// "reproduced in k of n".
      public var reproduced: String { "reproduced in \(rerunsFailedTheSameWay) of \(reruns.count)" }
    }
  }
}
