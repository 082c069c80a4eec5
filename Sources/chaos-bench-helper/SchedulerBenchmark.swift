import Failpoints
import Foundation
import LaunchTasks

/// `chaos-target --bench-scheduler [tasks] [edges] [runs]`: the scheduler's overhead per task
/// for no-op tasks in a random DAG, against calling the same closures in a plain loop.
/// Prints one JSON object (read by `chaos bench`).
enum SchedulerBenchmark {
  static func run(arguments: [String]) {
    let taskCount = arguments.first.flatMap(Int.init) ?? 1000
    let edgesPerTask = arguments.dropFirst().first.flatMap(Int.init) ?? 3
    let runs = arguments.dropFirst(2).first.flatMap(Int.init) ?? 50
    var generator = SeededGenerator(seed: 2026)
    // A random DAG: each task depends on up to `edgesPerTask` earlier tasks.
    let dependencies: [[Int]] = (0..<taskCount).map { index in
      index == 0 ? [] : (0..<edgesPerTask).map { _ in Int.random(in: 0..<index, using: &generator) }
    }
    var workflowSamples: [Double] = []
    var loopSamples: [Double] = []
    let counter = Counter()
    for _ in 0..<runs {
      var options = Workflow.Options()
      options.evaluatesFailpoints = true  // as in production: one atomic load per task when unarmed
      options.failpoints = FailpointRegistry()
      let workflow = Workflow(options: options)
      workflow.add(
        (0..<taskCount).map { index in
          ClosureTask(
            "t\(index)", after: Array(Set(dependencies[index])).map { "t\($0)" },
            placement: index % 2 == 0 ? .concurrent : .launchingThread
          ) { _ in counter.increment() }
        })
      let start = MonotonicClock.nanoseconds()
      try! workflow.run()
      workflowSamples.append(Double(MonotonicClock.nanoseconds() - start) / Double(taskCount))

      let closures: [@Sendable () -> Void] = (0..<taskCount).map { _ in { counter.increment() } }
      let loopStart = MonotonicClock.nanoseconds()
      for closure in closures { closure() }
      loopSamples.append(Double(MonotonicClock.nanoseconds() - loopStart) / Double(taskCount))
    }
    func percentile(_ values: [Double], _ p: Double) -> Double {
      let sorted = values.sorted()
      return sorted[min(sorted.count - 1, Int(Double(sorted.count - 1) * p + 0.5))]
    }
    let result: [String: Any] = [
      "tasks": taskCount, "edges_per_task": edgesPerTask, "runs": runs,
      "workflow_ns_per_task": ["p50": percentile(workflowSamples, 0.5), "p99": percentile(workflowSamples, 0.99)],
      "loop_ns_per_task": ["p50": percentile(loopSamples, 0.5), "p99": percentile(loopSamples, 0.99)],
    ]
    let data = try! JSONSerialization.data(withJSONObject: result, options: [.sortedKeys])
    print(String(decoding: data, as: UTF8.self))
  }

  final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var value = 0
    func increment() {
      lock.lock()
      value &+= 1
      lock.unlock()
    }
  }
}
