import Failpoints

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// One run of a workflow: the ready queues, the worker pool and the bookkeeping, all guarded
/// by one condition lock (tasks are coarse; contention is not the cost that matters here).
final class Execution: @unchecked Sendable {
  private let graph: TaskGraph
  private let options: Workflow.Options
  private let parameters: SharedParameters
  private let condition = ConditionLock()
  // Guarded by `condition`:
  private var remaining: [Int]
  private(set) var states: [TaskState]
  private var launchingReady: [Int] = []
  private var concurrentReady: [Int] = []
  private var startTimes: [Int: UInt64] = [:]
  private(set) var spans: [(task: String, start: UInt64, end: UInt64, thread: String)] = []
  private var settled = 0
  private var stopping = false
  private var exitedWorkers = 0

  init(graph: TaskGraph, options: Workflow.Options, parameters: SharedParameters) {
    self.graph = graph
    self.options = options
    self.parameters = parameters
    remaining = graph.predecessorCounts
    states = Array(repeating: .pending, count: graph.tasks.count)
  }

  func run() throws(WorkflowError) {
    let started = ContinuousClock.now
    condition.lock()
    for index in graph.tasks.indices where remaining[index] == 0 { enqueue(index) }
    let workerCount = min(options.maxConcurrency, graph.tasks.filter { $0.placement == .concurrent }.count)
    condition.unlock()
    for number in 0..<workerCount { startWorker(number) }
    defer {
      condition.lock()
      stopping = true
      condition.broadcast()
      condition.unlock()
    }

    condition.lock()
    while settled < graph.tasks.count {
      if let next = take(&launchingReady) {
        condition.unlock()
        execute(next, thread: "launching")
        condition.lock()
        continue
      }
      if let problem = overdue(since: started) {
        condition.unlock()
        throw problem
      }
      condition.wait(untilNanoseconds: ConditionLock.deadline(in: 0.05))
    }
    // Every task settled, so every worker is idle: let them finish, so that when `run` returns
    // no worker of this run is still starting up (its preparer running) or about to exit.
    stopping = true
    condition.broadcast()
    let patience = ConditionLock.deadline(in: 1)
    while exitedWorkers < workerCount, condition.wait(untilNanoseconds: patience) {}
    condition.unlock()
  }

  /// A timeout error if the workflow or a running task is past its limit. Caller holds the lock.
  private func overdue(since started: ContinuousClock.Instant) -> WorkflowError? {
    let now = MonotonicClock.nanoseconds()
    let taskLate =
      options.taskTimeout.map { limit in
        startTimes.values.contains {
          now - $0 > UInt64(limit.components.seconds) * 1_000_000_000
            + UInt64(limit.components.attoseconds / 1_000_000_000)
        }
      } ?? false
    let workflowLate = options.timeout.map { ContinuousClock.now - started > $0 } ?? false
    guard taskLate || workflowLate else { return nil }
    let running = graph.tasks.indices.filter { states[$0] == .running }.map { graph.tasks[$0].name }
    let pending = graph.tasks.indices.filter { states[$0] == .pending }.map { graph.tasks[$0].name }
    let limit = workflowLate ? options.timeout! : options.taskTimeout!
    return .timedOut(after: limit, running: running, pending: pending)
  }

  private func enqueue(_ index: Int) {
    if graph.tasks[index].placement == .launchingThread {
      launchingReady.append(index)
    } else {
      concurrentReady.append(index)
    }
    condition.broadcast()
  }

  /// Pops the ready task with the lowest priority value (then declaration order).
  private func take(_ queue: inout [Int]) -> Int? {
    guard
      let best = queue.indices.min(by: {
        (graph.tasks[queue[$0]].priority, queue[$0]) < (graph.tasks[queue[$1]].priority, queue[$1])
      })
    else { return nil }
    return queue.remove(at: best)
  }

  private func startWorker(_ number: Int) {
    // A 1 MiB stack, as the `Thread` this was before gave it.
    startDetachedThread(stackSize: 1 << 20) { [self] in
      options.threadPreparer?()
      CurrentThread.setName("launch-worker-\(number)")
      condition.lock()
      while !stopping {
        if let next = take(&concurrentReady) {
          condition.unlock()
          execute(next, thread: "worker-\(number)")
          condition.lock()
        } else {
          condition.wait()
        }
      }
      exitedWorkers += 1
      condition.broadcast()
      condition.unlock()
    }
  }

  private func execute(_ index: Int, thread: String) {
    let task = graph.tasks[index]
    condition.lock()
    states[index] = .running
    let start = MonotonicClock.nanoseconds()
    startTimes[index] = start
    condition.unlock()
    options.observer?(.taskStarted(name: task.name, thread: thread))
    let context = TaskContext(taskName: task.name, parameters: parameters, failpoints: options.failpoints) {
      [self] outcome in
      settle(index, outcome, start: start, thread: thread)
    }
    if options.evaluatesFailpoints, case .fail(let code) = options.failpoints.evaluate("task." + task.name) {
      context.settle(.failed("failpoint task.\(task.name) returned errno \(code)"))
      return
    }
    task.run(context)
    if task.completion == .synchronous { context.settle(.finished) }
  }

  private func settle(_ index: Int, _ outcome: TaskOutcome, start: UInt64, thread: String) {
    let end = MonotonicClock.nanoseconds()
    // Observers hear of a task's end before any dependent can start.
    switch outcome {
    case .finished: options.observer?(.taskFinished(name: graph.tasks[index].name))
    case .failed(let reason): options.observer?(.taskFailed(name: graph.tasks[index].name, reason: reason))
    }
    var failedNow: [(String, String)] = []
    condition.lock()
    startTimes[index] = nil
    spans.append((graph.tasks[index].name, start, end, thread))
    switch outcome {
    case .finished:
      states[index] = .finished
      settled += 1
      for successor in graph.successors[index] {
        remaining[successor] -= 1
        if remaining[successor] == 0, states[successor] == .pending { enqueue(successor) }
      }
    case .failed(let reason):
      states[index] = .failed(reason)
      settled += 1
      // Everything downstream can never run: fail it now, naming the cause.
      var stack = graph.successors[index].map { (task: $0, cause: index) }
      while let (next, cause) = stack.popLast() {
        guard states[next] == .pending else { continue }
        let why = "dependency '\(graph.tasks[cause].name)' failed"
        states[next] = .failed(why)
        failedNow.append((graph.tasks[next].name, why))
        launchingReady.removeAll { $0 == next }
        concurrentReady.removeAll { $0 == next }
        stack.append(contentsOf: graph.successors[next].map { (task: $0, cause: next) })
      }
    }
    condition.broadcast()
    condition.unlock()
    guard !failedNow.isEmpty else { return }
    // Dependents count as settled only after their events are out, so `run()` cannot return
    // (and the app exit) while they are still being reported.
    for (name, reason) in failedNow { options.observer?(.taskFailed(name: name, reason: reason)) }
    condition.lock()
    settled += failedNow.count
    condition.broadcast()
    condition.unlock()
  }
}
