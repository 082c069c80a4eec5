import Foundation
import Synchronization

/// Runs many scenarios, `jobs` at a time, with no shared state between them.
public struct SuiteRunner: Sendable {
  /// Options in force.
  public var options: RunOptions

  /// Creates a suite runner.
  public init(options: RunOptions) { self.options = options }

  /// Runs every scenario (each `repeatCount` times); `progress` is called as each finishes.
  public func run(_ scenarios: [Scenario], progress: @escaping @Sendable (ScenarioResult, Int, Int) -> Void)
    -> [ScenarioResult]
  {
    let work = scenarios.flatMap { scenario in (1...options.repeatCount).map { (scenario, $0) } }
    let results = Mutex([ScenarioResult?](repeating: nil, count: work.count))
    let next = Mutex(0)
    let finished = Mutex(0)
    let sweeper = Sweeper()
    defer { sweeper.finish() }
    let runner = {
      var runner = ScenarioRunner(options: options)
      runner.sweeper = sweeper
      return runner
    }()
    let workers = max(1, min(options.jobs, work.count))
    DispatchQueue.concurrentPerform(iterations: workers) { _ in
      while !ChildRegistry.shared.isCancelled {
        let index = next.withLock { value -> Int in
          defer { value += 1 }
          return value
        }
        guard index < work.count else { return }
        let result = runner.run(work[index].0, round: work[index].1)
        results.withLock { $0[index] = result }
        let done = finished.withLock { value -> Int in
          value += 1
          return value
        }
        progress(result, done, work.count)
      }
    }
    return results.withLock { $0.compactMap { $0 } }
  }
}
