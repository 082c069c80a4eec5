import Failpoints
import Synchronization

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// A launch made of named tasks: built in sequence (`addTask`, `addBlockingTasks`) and/or from
/// each task's own declarations, validated as a DAG, run with bounded concurrency.
///
/// ```swift
/// let workflow = Workflow()
/// workflow.addTask(a); workflow.addTask(b)              // A then B
/// workflow.addBlockingTasks([c, d, e, f])               // a barrier group; E, F concurrent
/// workflow.addTask(g); workflow.addTask(h)              // after the whole group
/// try workflow.run()
/// ```
public final class Workflow: Sendable {
  /// How the workflow runs.
  public struct Options: Sendable {
    /// Worker threads for concurrent tasks; default: the number of cores.
    public var maxConcurrency = max(1, ProcessInfo.processInfo.activeProcessorCount)
    /// Evaluate `task.<name>` right before each task runs (on its thread). Turn off when the
    /// tasks call `context.evaluateFailpoint()` inside their own code.
    public var evaluatesFailpoints = true
    /// The registry failpoints are evaluated in.
    public var failpoints: FailpointRegistry = .shared
    /// Called first on every worker thread (e.g. `CrashCapture.prepareCurrentThread`).
    public var threadPreparer: (@Sendable () -> Void)?
    /// A task running longer than this ends `run()` with `timedOut`.
    public var taskTimeout: Duration?
    /// The whole workflow must finish within this.
    public var timeout: Duration?
    /// Receives task and lifecycle events.
    public var observer: (@Sendable (WorkflowEvent) -> Void)?

    /// Default options.
    public init() {}
  }

  private struct Builder {
    var observers: [@Sendable (WorkflowEvent) -> Void] = []
    var threadPreparers: [@Sendable () -> Void] = []
    var tasks: [any LaunchTask] = []
    var stages: [[Int]] = []
    var graph: TaskGraph?
    var states: [TaskState] = []
    var spans: [(task: String, start: UInt64, end: UInt64, thread: String)] = []
  }

  /// The options in force.
  public let options: Options
  /// Parameters every task's context shares.
  public let parameters = SharedParameters()
  private let builder = Mutex(Builder())

  /// Creates an empty workflow.
  public init(options: Options = Options()) { self.options = options }

  /// Adds an observer of task and lifecycle events, beside `options.observer` (e.g. ChaosProbe's).
  /// Add observers before `run()`.
  public func addObserver(_ observer: @escaping @Sendable (WorkflowEvent) -> Void) {
    builder.withLock { $0.observers.append(observer) }
  }

  /// Adds a call made first on every worker thread, beside `options.threadPreparer`.
  public func addThreadPreparer(_ preparer: @escaping @Sendable () -> Void) {
    builder.withLock { $0.threadPreparers.append(preparer) }
  }

  /// The names of the tasks added so far, in the order they were added.
  public var taskNames: [String] { builder.withLock { $0.tasks.map(\.name) } }

  /// The options with the added observers and thread preparers folded in.
  private var effectiveOptions: Options {
    let (observers, preparers) = builder.withLock { ($0.observers, $0.threadPreparers) }
    var effective = options
    if !observers.isEmpty {
      let base = options.observer
      effective.observer = { event in
        base?(event)
        for observer in observers { observer(event) }
      }
    }
    if !preparers.isEmpty {
      let base = options.threadPreparer
      effective.threadPreparer = {
        base?()
        for preparer in preparers { preparer() }
      }
    }
    return effective
  }

  /// Adds a task that runs after everything added before it with `addTask`/`addBlockingTasks`.
  public func addTask(_ task: any LaunchTask) { addStage([task]) }

  /// Adds a group that runs after everything added before it; what is added after waits for the
  /// whole group (a barrier). Inside, launching-thread tasks run in order and concurrent ones in parallel.
  public func addBlockingTasks(_ tasks: [any LaunchTask]) { addStage(tasks) }

  /// Adds tasks ordered only by their own declarations (`runsAfter`, `runsBefore`, priority).
  public func add(_ tasks: [any LaunchTask]) {
    builder.withLock { $0.tasks.append(contentsOf: tasks) }
  }

  /// Adds every task registered at compile time (see `TaskRegistration`) for `stage`.
  public func addRegisteredTasks(stage: String = "launch") {
    add(RegisteredTasks.all().filter { $0.stage == stage })
  }

  private func addStage(_ tasks: [any LaunchTask]) {
    builder.withLock { builder in
      let first = builder.tasks.count
      builder.tasks.append(contentsOf: tasks)
      builder.stages.append(Array(first..<builder.tasks.count))
    }
  }

  /// Validates the graph without running it.
  public func validate() throws(WorkflowError) {
    _ = try graph()
  }

  private func graph() throws(WorkflowError) -> TaskGraph {
    let (tasks, stages) = builder.withLock { ($0.tasks, $0.stages) }
    var stageEdges: [(from: Int, to: Int)] = []
    for (earlier, later) in zip(stages, stages.dropFirst()) {
      for from in earlier { for to in later { stageEdges.append((from, to)) } }
    }
    return try TaskGraph(tasks: tasks, stageEdges: stageEdges)
  }

  /// Runs every task and returns when all have finished or failed. Structural problems
  /// (cycle, missing dependency, duplicate) are thrown before anything runs.
  public func run() throws(WorkflowError) {
    let graph = try graph()
    builder.withLock { $0.graph = graph }
    let execution = Execution(graph: graph, options: effectiveOptions, parameters: parameters)
    defer {
      builder.withLock { builder in
        builder.states = execution.states
        builder.spans = execution.spans
      }
    }
    try execution.run()
  }

  /// Each task's state, by name.
  public var states: [String: TaskState] {
    builder.withLock { builder in
      Dictionary(
        uniqueKeysWithValues: zip(
          builder.tasks.map(\.name),
          builder.states.isEmpty ? Array(repeating: .pending, count: builder.tasks.count) : builder.states))
    }
  }

  /// When each task ran, with what each waited for.
  public func generateTimeline() -> Timeline {
    let (spans, graph) = builder.withLock { ($0.spans, $0.graph) }
    return Timeline(spans: spans, dependencies: graph?.predecessorNames ?? [:])
  }

  /// The tasks `task` waits for: its declared `runsAfter`, the tasks naming it in `runsBefore`
  /// and, with `addTask`/`addBlockingTasks`, the stage before it. Empty until `run()` has
  /// validated the graph (observers of `taskStarted` may ask).
  public func dependencies(of task: String) -> [String] {
    builder.withLock { $0.graph?.predecessorNames[task] ?? [] }
  }

  /// Delivers a lifecycle event to every task that finished initialising, in dependency order,
  /// on the calling thread. Tasks that are pending, running or failed receive nothing.
  public func dispatch(lifecycleEvent event: String) {
    let (graph, states) = builder.withLock { ($0.graph, $0.states) }
    guard let graph else { return }
    let options = effectiveOptions
    for index in graph.topologicalOrder() where states.indices.contains(index) && states[index] == .finished {
      let task = graph.tasks[index]
      options.observer?(.lifecycle(event: event, task: task.name))
      task.handle(lifecycleEvent: event)
    }
  }
}
