/// Why a workflow could not run or did not finish. Each names the tasks involved.
public enum WorkflowError: Error, Equatable, CustomStringConvertible {
  /// Two tasks share a name.
  case duplicateName(String)
  /// A task depends on (or must precede) a task that does not exist.
  case missingDependency(task: String, missing: String)
  /// The declared order has a cycle; the path starts and ends at the same task.
  case cycle([String])
  /// Tasks did not finish in time; lists what was still running and what never started.
  case timedOut(after: Duration, running: [String], pending: [String])

  public var description: String {
    switch self {
    case .duplicateName(let name): "two tasks are named '\(name)'"
    case .missingDependency(let task, let missing):
      "task '\(task)' depends on '\(missing)', which is not in the workflow"
    case .cycle(let path): "dependency cycle: \(path.joined(separator: " → "))"
    case .timedOut(let after, let running, let pending):
      "workflow did not finish within \(after): still running [\(running.joined(separator: ", "))], never started [\(pending.joined(separator: ", "))]"
    }
  }
}

/// A task's state.
public enum TaskState: Sendable, Hashable {
  /// Not started.
  case pending
  /// Started, not finished.
  case running
  /// Done.
  case finished
  /// Failed itself, or a task it depends on failed (then the reason names it).
  case failed(String)
}

/// What the workflow reports to observers.
public enum WorkflowEvent: Sendable {
  /// A task is about to run, on this thread.
  case taskStarted(name: String, thread: String)
  /// A task finished.
  case taskFinished(name: String)
  /// A task failed (or was skipped because a dependency failed).
  case taskFailed(name: String, reason: String)
  /// A lifecycle event was delivered to a task.
  case lifecycle(event: String, task: String)
}
