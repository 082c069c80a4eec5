import Failpoints
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
    /// Explore for this many seconds, a hard limit: when they are up, the sequences under way
    /// are cut (their launch's process groups killed and reaped, never judged) and counted in
    /// `Report.cut`. The store's replay before exploring counts against them; a divergence found
    /// in them is still shrunk and re-run after (`Report.Failure.secondsToShrink`).
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
    /// Scratch space for runs (removed as they pass); each explorer its own, also in one process.
    public var artifactsDirectory =
      NSTemporaryDirectory() + "chaos-explore-\(getpid())-\(UUID().uuidString.prefix(8).lowercased())"
    /// Requests (`requests:` of the scenario format) sent in every launch of a daemon once it
    /// finished launching, so failpoints in request handlers are reached (`--workload`). They
    /// are written with `optional: true`: a fault may end the server mid-request.
    public var workload: [RequestStep] = []
    /// The folder the workload's commands run in and resolve relative paths from (the
    /// workload file's); nil: a scratch folder.
    public var workloadDirectory: String?
    /// How often a shrunk divergence is re-run; it is confirmed only if every re-run fails the
    /// same way, else it is reported as flaky.
    public var reruns = 3
    /// How many re-runs in all measure the rate of a divergence that any of the first `reruns`
    /// reproduced: that rate decides whether it is intermittent and how often the written
    /// scenario repeats it (`Verdict.rounds`).
    public var rateReruns = 12
    /// A failure store (`--store`): a directory of minimal failing scenarios, keyed by what
    /// diverged, replayed before exploring and added to when a divergence is confirmed.
    public var store: String?
    /// This run explores sequence k of the campaign when k mod `shardCount` is `shardIndex`
    /// (0-based); `sequences` counts the whole campaign.
    public var shardIndex = 0
    /// The number of shards the campaign is split into.
    public var shardCount = 1
    /// Keep each process's events in the results the report holds (for `chaos explore --html`).
    public var recordsTimeline = false

    /// Options for a target.
    public init(target: String) { self.target = target }
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
    // Exploring's runner cuts its sequences when the time is up; the replay and the shrinker's do not.
    var cutting = runOptions
    cutting.cutoff = options.seconds.map { MonotonicClock.nanoseconds() + UInt64($0 * 1e9) }
    // Generated configurations add no failpoints: the listing above checks every sequence's names.
    cutting.failpointListing = listing
    try? FileManager.default.createDirectory(
      atPath: options.artifactsDirectory + "/explore", withIntermediateDirectories: true)
    var initial = Report(seed: options.seed)
    if options.shardCount > 1 { initial.shard = "\(options.shardIndex + 1)/\(options.shardCount)" }
    initial.declaredFailpoints = generator.points + generator.lifePoints
    if let replayed = replayStore(&initial, runner: runner, started: started) {
      initial.failure = replayed
      initial.seconds = Date().timeIntervalSince(started)
      try? FileManager.default.removeItem(atPath: options.artifactsDirectory)
      return initial
    }
    // Passed sequences' folders are removed by a background thread, off the launch path.
    let sweeper = Sweeper()
    var exploring = ScenarioRunner(options: cutting)
    exploring.sweeper = sweeper
    let explorer = exploring
    let state = Mutex(initial)
    let next = Mutex(0)
    let found = Mutex<(ExplorationSequence, ScenarioResult, Double)?>(nil)
    let budgetSeconds = options.seconds
    let budgetSequences = options.sequences
    DispatchQueue.concurrentPerform(iterations: max(1, options.jobs)) { _ in
      while found.withLock({ $0 == nil }) && !ChildRegistry.shared.isCancelled {
        let elapsed = Date().timeIntervalSince(started)
        if let budgetSeconds, elapsed >= budgetSeconds { return }
        let local = next.withLock { value -> Int in
          defer { value += 1 }
          return value
        }
        let index = Self.campaignIndex(local, shardIndex: options.shardIndex, shardCount: options.shardCount)
        if let budgetSequences, index >= budgetSequences { return }
        let wall = RunProfile.start()
        defer { RunProfile.add("sequences (all of it)", since: wall) }
        let original = generator.sequence(seed: options.seed, index: index)
        let judgement = Judgement(original)
        let result = explorer.run(scenario(original, name: "s\(index)"), judge: judgement.judge)
        if result.cutAtLaunch != nil {
          state.withLock {
            $0.cut += 1
            $0.launches += result.processes.count
          }
          return
        }
        let sequence = judgement.sequence
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
          for point in judgement.notReached { report.notReached[point, default: 0] += 1 }
          report.unseenStops += sequence.steps.prefix(ran).filter(\.stopUnseen).count
          for prediction in predictions.prefix(ran) {
            if prediction.mode == .protect { report.protectLaunches += 1 }
            if let level = prediction.level { report.levelsReached.insert(level) }
          }
          report.levelsConfigured.formUnion(1...max(1, sequence.app.levels.count))
          if sequence.app.customProtectsAt != nil { report.customPolicy = true }
          var model = ContractModel()
          for (step, prediction) in zip(sequence.steps, predictions).prefix(ran) {
            for rule in ContractRule.reached(by: step, before: model, prediction: prediction, app: sequence.app) {
              report.ruleLaunches[rule.rawValue, default: 0] += step.processes * step.repeatCount
            }
            _ = model.step(step, app: sequence.app)
          }
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
    sweeper.finish()
    var report = state.withLock { $0 }
    report.neverFired = report.declaredFailpoints.filter { (report.coverage[$0] ?? [:]).isEmpty }
    report.ruleReach = ContractRule.allCases.map { rule in
      let launches = report.ruleLaunches[rule.rawValue] ?? 0
      return Report.RuleReach(
        rule: rule.rawValue, launches: launches,
        whyNone: launches > 0 ? nil : rule.whyNone(generator: generator, sequences: report.sequences))
    }
    report.seconds = Date().timeIntervalSince(started)
    if let (sequence, result, secondsToFind) = found.withLock({ $0 }) {
      report.failure = shrinkAndWrite(sequence, result, runner: runner, secondsToFind: secondsToFind)
    }
    try? FileManager.default.removeItem(atPath: options.artifactsDirectory)
    return report
  }

  /// The campaign's sequence number of this shard's `local`-th sequence.
  package static func campaignIndex(_ local: Int, shardIndex: Int, shardCount: Int) -> Int {
    local * max(1, shardCount) + shardIndex
  }

  func scenario(_ sequence: ExplorationSequence, name: String) -> Scenario {
    var scenario = sequence.scenario(
      target: options.target, baseApp: options.app, environment: options.environment,
      path: (options.workloadDirectory ?? options.artifactsDirectory + "/explore") + "/\(name).yaml")
    if sequence.app.daemon, !options.workload.isEmpty {
      let requests = options.workload.map { step in
        var step = step
        step.optional = true
        return step
      }
      // Not with a stop at a hung failpoint: `send_signal` waits for the requests, which would
      // wait for a launch that never finishes.
      for index in scenario.launches.indices where scenario.launches[index].sendSignal == nil {
        scenario.launches[index].requests = requests
      }
    }
    return scenario
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
    let message = result.messages.first ?? result.status.rawValue
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
  static func failureKind(_ result: ScenarioResult) -> ScenarioFailure.Kind? {
    guard result.status == .failed else { return nil }
    return result.failures.first?.kind
  }
}
