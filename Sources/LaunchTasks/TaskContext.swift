import Failpoints
import Synchronization

/// What a running task is given: its name, the shared parameters, and (for asynchronous tasks)
/// the way to say it is done.
public final class TaskContext: Sendable {
  /// The task's name.
  public let taskName: String
  /// Parameters shared by every task of the workflow (shared launch options).
  public let parameters: SharedParameters
  private let failpoints: FailpointRegistry
  private let finish: @Sendable (TaskOutcome) -> Void
  private let finished = Atomic<Bool>(false)

  init(
    taskName: String, parameters: SharedParameters, failpoints: FailpointRegistry,
    finish: @escaping @Sendable (TaskOutcome) -> Void
  ) {
    self.taskName = taskName
    self.parameters = parameters
    self.failpoints = failpoints
    self.finish = finish
  }

  /// An asynchronous task is done. Later calls are ignored.
  public func complete() { settle(.finished) }

  /// The task failed; tasks that depend on it will not run.
  public func fail(_ error: any Error) { settle(.failed("\(error)")) }

  /// Evaluates the failpoint `task.<name>` here, inside the task's own code (for workflows
  /// with `evaluatesFailpoints` off), so a fault's backtrace names the task's function.
  /// Returns the errno of a `return(errno)` action, if one fired.
  @discardableResult
  public func evaluateFailpoint() -> Int32? {
    if case .fail(let code) = failpoints.evaluate("task." + taskName) { return code }
    return nil
  }

  func settle(_ outcome: TaskOutcome) {
    if finished.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged {
      finish(outcome)
    }
  }
}

enum TaskOutcome: Sendable {
  case finished
  case failed(String)
}

/// A small thread-safe dictionary every task of a workflow shares.
public final class SharedParameters: Sendable {
  private let values = Mutex<[String: any Sendable]>([:])

  /// Creates an empty set.
  public init() {}

  /// Reads or writes a parameter.
  public subscript(key: String) -> (any Sendable)? {
    get { values.withLock { $0[key] } }
    set { values.withLock { $0[key] = newValue } }
  }
}
