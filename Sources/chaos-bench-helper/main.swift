import CComparisonHandlers
import ChaosProbe
import Foundation
import LaunchProtection
import LaunchTasks

// `chaos bench`'s helper: micro-benchmarks of libraries the `chaos` CLI does not link, and a
// minimal instrumented app whose crash handling can be swapped, so crash-to-reap compares
// handlers on one and the same program. Never a scenario target.

switch CommandLine.arguments.dropFirst().first {
case "--bench-scheduler": SchedulerBenchmark.run(arguments: Array(CommandLine.arguments.dropFirst(2)))
case "--bench-warm-handler": WarmHandlerBenchmark.run()
case "--bench-install": InstallCostBenchmark.run(arguments: Array(CommandLine.arguments.dropFirst(2)))
case "--bench-failpoints": FailpointCostBenchmark.run()
case "--bench-probe": ProbeCostBenchmark.run(arguments: Array(CommandLine.arguments.dropFirst(2)))
case "--count-launch-path": LaunchPathCount.run(arguments: Array(CommandLine.arguments.dropFirst(2)))
case "--bench-first-launch": FirstLaunchBenchmark.run(arguments: Array(CommandLine.arguments.dropFirst(2)))
case "--stop-window": StopWindowProbe.run(arguments: Array(CommandLine.arguments.dropFirst(2)))
case nil: CrashToReapApp.run()
case let other?:
  FileHandle.standardError.write(Data("chaos-bench-helper: unknown mode \(other)\n".utf8))
  exit(2)
}
exit(0)
