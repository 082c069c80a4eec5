/// Where a task runs.
public enum TaskPlacement: String, Sendable, Codable {
  /// On the thread that called `Workflow.run()` (e.g. the main thread), one at a time.
  case launchingThread
  /// On a worker thread, possibly alongside other concurrent tasks.
  case concurrent
}

/// How a task says it is done.
public enum TaskCompletion: String, Sendable, Codable {
  /// When `run` returns.
  case synchronous
  /// When it calls `context.complete()` (or `context.fail(_:)`), from any thread, later.
  case asynchronous
}

/// A named unit of launch work that declares its own ordering.
///
/// Conform a class (one per task) or use `ClosureTask`.
public protocol LaunchTask: AnyObject, Sendable {
  /// Unique name; the failpoint `task.<name>` is evaluated right before it runs.
  var name: String { get }
  /// Tasks this one must run after.
  var runsAfter: [String] { get }
  /// Tasks that must run after this one.
  var runsBefore: [String] { get }
  /// Lower runs first when several tasks are ready; default 500.
  var priority: Int { get }
  /// Launching thread or concurrent; default concurrent.
  var placement: TaskPlacement { get }
  /// Synchronous or asynchronous; default synchronous.
  var completion: TaskCompletion { get }
  /// The stage it belongs to when discovered through self-registration; default `launch`.
  var stage: String { get }
  /// Does the work.
  func run(_ context: TaskContext)
  /// Handles a later lifecycle event (`didBecomeActive`, `willTerminate`...); default: nothing.
  func handle(lifecycleEvent: String)
}

extension LaunchTask {
  public var runsAfter: [String] { [] }
  public var runsBefore: [String] { [] }
  public var priority: Int { 500 }
  public var placement: TaskPlacement { .concurrent }
  public var completion: TaskCompletion { .synchronous }
  public var stage: String { "launch" }
  public func handle(lifecycleEvent: String) {}
}

/// A task made of a closure.
public final class ClosureTask: LaunchTask {
  public let name: String
  public let runsAfter: [String]
  public let runsBefore: [String]
  public let priority: Int
  public let placement: TaskPlacement
  public let completion: TaskCompletion
  public let stage: String
  private let body: @Sendable (TaskContext) -> Void
  private let lifecycle: (@Sendable (String) -> Void)?

  /// Creates a task; `body` runs it, `lifecycle` (optional) handles later lifecycle events.
  public init(
    _ name: String, after: [String] = [], before: [String] = [], priority: Int = 500,
    placement: TaskPlacement = .concurrent, completion: TaskCompletion = .synchronous, stage: String = "launch",
    lifecycle: (@Sendable (String) -> Void)? = nil, body: @escaping @Sendable (TaskContext) -> Void
  ) {
    self.name = name
    self.runsAfter = after
    self.runsBefore = before
    self.priority = priority
    self.placement = placement
    self.completion = completion
    self.stage = stage
    self.lifecycle = lifecycle
    self.body = body
  }

  public func run(_ context: TaskContext) { body(context) }

  public func handle(lifecycleEvent: String) { lifecycle?(lifecycleEvent) }
}
