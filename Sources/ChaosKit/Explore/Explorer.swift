import Foundation
import Synchronization

/// `chaos explore`: generates crash loops, predicts each launch with `ContractModel`, runs them
/// as scenarios against the real target, and shrinks the first divergence to a minimal scenario.
public struct Explorer: Sendable {
  /// How to explore.
  public struct Options: Sendable {
    /// The target program.
    public var target: String
    /// `CHAOS_APP` fields merged over each generated configuration.
    public var app: JSONValue?
    /// The run's seed; sequence i uses (seed, i).
    public var seed: UInt64 = 1
    /// Stop after this many seconds (checked between sequences).
    public var seconds: Double?
    /// Stop after this many sequences.
    public var sequences: Int?
    /// Sequences run at once.
    public var jobs = max(1, ProcessInfo.processInfo.activeProcessorCount)
    /// Where the shrunk failing scenario is written.
    public var outDirectory = "chaos-explore"
    /// Extra environment for every launch (`${CHAOS_STATE_DIR}` is this run's state
    /// directory), written into the scenario as `env:` — e.g. the app's data directory, so
    /// that runs do not share it.
    public var environment: [String: String] = [:]
    /// Scratch space for runs (removed as they pass).
    public var artifactsDirectory = NSTemporaryDirectory() + "chaos-explore-\(getpid())"
    /// Keep each process's events in the results the report holds (for `chaos explore --html`).
    public var recordsTimeline = false

    /// Options for a target.
    public init(target: String) { self.target = target }
  }

  /// What exploration found and reached.
  public struct Report: Codable, Sendable {
    /// The run's seed (`--seed`).
    public var seed: UInt64
    /// Sequences run.
    public var sequences = 0
    /// Launches run, every process of a shared launch counted.
    public var launches = 0
    /// Wall-clock seconds of the run.
    public var seconds = 0.0
    /// failpoint → fault kind → times it fired.
    public var coverage: [String: [String: Int]] = [:]
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
    /// The first divergence, shrunk; nil when every launch matched its prediction.
    public var failure: Failure?
    /// Each sequence's verdict, in the order they finished.
    public var verdicts: [SequenceVerdict] = []

    /// The divergence, shrunk.
    public struct Failure: Codable, Sendable {
      /// The seed of the sequence that diverged.
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
      /// The scenario file written to `--out`.
      public var path: String
      /// Whether the written scenario, run again, failed the same way.
      public var confirmed: Bool
      /// Every candidate the shrinker tried, in order.
      public var shrinkSteps: [ShrinkStep] = []
      /// The written scenario file's text.
      public var scenarioText = ""
      /// The launch where the target and the model first disagreed (in the minimal scenario).
      public var divergentLaunch: Int?
      /// The model's prediction for that launch beside what its processes did.
      public var comparison: [PredictionComparison] = []
      /// The run of the minimal scenario (of the original sequence when that run passed).
      public var run: ScenarioResult?
    }
  }

  /// Progress after each sequence: (sequences, launches, seconds, divergences).
  public typealias Progress = @Sendable (Int, Int, Double, Int) -> Void

  /// What to explore, and how long.
  public var options: Options

  /// Creates an explorer.
  public init(options: Options) { self.options = options }

  /// Explores until the budget is spent or a divergence is found (then shrinks it).
  /// Throws when the target cannot list its failpoints.
  public func run(progress: Progress = { _, _, _, _ in }) throws(ScenarioError) -> Report {
    let appText = ScenarioRunner.appJSON(options.app, nil)
    guard let listing = TargetFailpoints.list(target: options.target, app: appText) else {
      throw ScenarioError(
        path: options.target, line: 0, column: 0,
        message: "the target does not list its failpoints (CHAOS_LIST_FAILPOINTS=1, see Docs/Protocol.md)")
    }
    var declaredApp: ExplorationApp?
    if !listing.acceptsApp {
      do {
        declaredApp = try TargetDiscovery.declaredPolicy(target: options.target, environment: options.environment)
        declaredApp?.pointPhases = listing.phases
      } catch {
        throw ScenarioError(path: options.target, line: 0, column: 0, message: error.description)
      }
    }
    let generator = SequenceGenerator(declared: listing.failpoints, declaredApp: declaredApp)
    var runOptions = RunOptions()
    runOptions.artifactsDirectory = options.artifactsDirectory
    runOptions.jobs = 1
    runOptions.recordsTimeline = options.recordsTimeline
    let runner = ScenarioRunner(options: runOptions)
    let started = Date()
    let state = Mutex(Report(seed: options.seed))
    state.withLock { $0.declaredFailpoints = generator.points + generator.lifePoints }
    let next = Mutex(0)
    let found = Mutex<(ExplorationSequence, ScenarioResult, Double)?>(nil)
    let budgetSeconds = options.seconds
    let budgetSequences = options.sequences
    DispatchQueue.concurrentPerform(iterations: max(1, options.jobs)) { _ in
      while found.withLock({ $0 == nil }) && !ChildRegistry.shared.isCancelled {
        let elapsed = Date().timeIntervalSince(started)
        if let budgetSeconds, elapsed >= budgetSeconds { return }
        let index = next.withLock { value -> Int in
          defer { value += 1 }
          return value
        }
        if let budgetSequences, index >= budgetSequences { return }
        let sequence = generator.sequence(seed: options.seed, index: index)
        let result = runner.run(scenario(sequence, name: "s\(index)"))
        let verdict = SequenceVerdict(
          index: index, seed: sequence.seed, summary: sequence.summary, launches: sequence.steps.count,
          processes: result.processes.count, passed: result.passed,
          difference: result.passed ? nil : Self.firstDifference(result), seconds: result.seconds)
        let predictions = sequence.predictions
        // Launches that ran (a failing scenario stops early; a launch may run several processes).
        let ran = Set(result.processes.map(\.launch)).count
        let snapshot = state.withLock { report -> Report in
          report.sequences += 1
          report.verdicts.append(verdict)
          report.launches += result.processes.count
          for prediction in predictions.prefix(ran) {
            if prediction.mode == "protect" { report.protectLaunches += 1 }
            if let level = prediction.level { report.levelsReached.insert(level) }
          }
          report.levelsConfigured.formUnion(1...max(1, sequence.app.levels.count))
          if sequence.app.customProtectsAt != nil { report.customPolicy = true }
          for (step, prediction) in zip(sequence.steps, predictions).prefix(ran) {
            if step.processes > 1 { report.sharedLaunches += 1 }
            guard let point = prediction.fired else { continue }
            if step.skip > 0 { report.secondPassFaults += 1 }
            let kind: String
            switch step.action {
            case .fault(_, let fault): kind = fault.rawValue
            case .sigterm: kind = "sigterm"
            default: continue
            }
            report.coverage[point, default: [:]][kind, default: 0] += 1
          }
          return report
        }
        if !result.passed {
          found.withLock { if $0 == nil { $0 = (sequence, result, Date().timeIntervalSince(started)) } }
        }
        progress(
          snapshot.sequences, snapshot.launches, Date().timeIntervalSince(started),
          found.withLock { $0 == nil ? 0 : 1 })
      }
    }
    var report = state.withLock { $0 }
    report.seconds = Date().timeIntervalSince(started)
    if let (sequence, result, secondsToFind) = found.withLock({ $0 }) {
      report.failure = shrinkAndWrite(sequence, result, runner: runner, secondsToFind: secondsToFind)
    }
    try? FileManager.default.removeItem(atPath: options.artifactsDirectory)
    return report
  }

  func scenario(_ sequence: ExplorationSequence, name: String) -> Scenario {
    sequence.scenario(
      target: options.target, baseApp: options.app, environment: options.environment, path: "explore/\(name).yaml")
  }

  /// The first failure message of a run: `launch N: expected …, saw …` (no scratch path, pid
  /// or artifact lines, which differ from run to run).
  /// The target as a written scenario should name it, so the file runs from any directory and
  /// can be committed beside the app: a product built beside the running `chaos` or test
  /// bundle by its bare name (the runner looks there), anything else relative to the folder the
  /// scenario is written to (the runner resolves relative targets from the scenario's folder).
  static func portableTarget(_ target: String, from directory: String) -> String {
    let name = URL(fileURLWithPath: target).lastPathComponent
    let beside = URL(fileURLWithPath: ScenarioCase.executable(name)).resolvingSymlinksInPath().path
    if beside == URL(fileURLWithPath: target).resolvingSymlinksInPath().path { return name }
    return RelativePath.of(target, from: directory)
  }

  static func firstDifference(_ result: ScenarioResult) -> String {
    let message = result.messages.first ?? result.status
    let line = message.split(separator: "\n").first.map(String.init) ?? message
    guard let launch = line.range(of: ": launch ") else { return line }
    var text = "launch " + line[launch.upperBound...]
    if let open = text.range(of: " ("), let close = text.range(of: "): ", range: open.upperBound..<text.endIndex) {
      text.replaceSubrange(open.lowerBound..<close.upperBound, with: ": ")
    }
    return text
  }

  /// What a failure is about (`count`, `outcome`, `state.attempted_level`…): shrinking keeps
  /// only candidates that fail the same way, not with another bug or a scenario error.
  static func failureKind(_ result: ScenarioResult) -> String? {
    guard result.status == "failed", let message = result.messages.first,
      let expected = message.range(of: "expected ")
    else { return nil }
    return String(message[expected.upperBound...].prefix { $0 != " " })
  }

  private func shrinkAndWrite(
    _ original: ExplorationSequence, _ result: ScenarioResult, runner: ScenarioRunner, secondsToFind: Double
  ) -> Report.Failure {
    let started = Date()
    var attempt = 0
    var steps: [ShrinkStep] = []
    let kind = Self.failureKind(result)
    func fails(_ candidate: ExplorationSequence) -> Bool {
      attempt += 1
      let run = runner.run(self.scenario(candidate, name: "shrink-\(attempt)"))
      let same = kind != nil && Self.failureKind(run) == kind
      steps.append(
        ShrinkStep(
          attempt: attempt, summary: candidate.summary, launches: candidate.steps.count, kept: same,
          verdict: run.passed ? "passed" : Self.firstDifference(run)))
      return same
    }
    let shrunk = Shrinker.shrink(original, budget: 300, fails: fails)
    // Confirm: the written file, loaded back, fails when run like any scenario.
    try? FileManager.default.createDirectory(atPath: options.outDirectory, withIntermediateDirectories: true)
    let path = options.outDirectory + "/explore-seed-\(original.seed).yaml"
    let confirmation = runner.run(self.scenario(shrunk, name: "confirm"))
    let difference = Self.firstDifference(confirmation.passed ? result : confirmation)
    let comments = [
      "Found by: chaos explore --seed \(options.seed) (sequence seed \(original.seed))",
      "Shrunk from \(original.steps.count) launches to \(shrunk.steps.count).",
      "What differed: " + difference.replacingOccurrences(of: "\n", with: " "),
      "The expectations are what the protection contract predicts; `chaos run` on this file fails until the bug is fixed.",
    ]
    var scenario = self.scenario(shrunk, name: "explore-seed-\(original.seed)")
    scenario.target = Self.portableTarget(options.target, from: options.outDirectory)
    scenario.name = "explore: seed \(original.seed), \(shrunk.steps.count) launches"
    scenario.description = "a crash loop generated by chaos explore where the target and the contract model disagree"
    let text = ScenarioWriter.yaml(scenario, comments: comments)
    try? text.write(toFile: path, atomically: true, encoding: .utf8)
    var confirmed = false
    if let loaded = try? ScenarioLoader.load(path: path) { confirmed = !runner.run(loaded).passed }
    var shown = confirmation.passed ? result : confirmation
    shown.artifacts = nil  // the scratch directory is removed when exploring ends
    let divergent = shown.processes.first { !$0.failures.isEmpty }?.launch
    let predictions = (confirmation.passed ? original : shrunk).predictions
    var comparison: [PredictionComparison] = []
    if let divergent, predictions.indices.contains(divergent - 1) {
      comparison = PredictionComparison.compare(
        predictions[divergent - 1], shown.processes.filter { $0.launch == divergent })
    }
    return Report.Failure(
      sequenceSeed: original.seed, originalLaunches: original.steps.count, shrunkLaunches: shrunk.steps.count,
      firstDifference: difference, secondsToFind: secondsToFind, secondsToShrink: Date().timeIntervalSince(started),
      path: path, confirmed: confirmed, shrinkSteps: steps, scenarioText: text, divergentLaunch: divergent,
      comparison: comparison, run: shown)
  }
}

/// Makes a failing sequence as small as it can while it still fails: drop launches, then
/// simplify each (no state edit, a plain segv, a plain task), then the configuration (lower
/// threshold, fewer levels, protect-finish on).
