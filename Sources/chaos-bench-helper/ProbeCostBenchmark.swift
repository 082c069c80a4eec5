import ChaosProbe
import Foundation
import LaunchProtection
import LaunchTasks

/// `chaos-bench-helper --bench-probe`: what an inert ChaosProbe (not under chaos:
/// `CHAOS_EVENTS` unset) adds to a launch — `declare`, `attach(workflow)` and
/// `attach(organizer)` timed together, first in a fresh process (the environment is read
/// then) and repeated. Prints one JSON object; `chaos bench` runs many fresh processes.
enum ProbeCostBenchmark {
  static func run(arguments: [String]) {
    unsetenv("CHAOS_EVENTS")
    unsetenv("CHAOS_LIST_FAILPOINTS")
    let organizer = LaunchOrganizer(stateDirectory: NSTemporaryDirectory() + "/chaos-probe-cost")
    let workflow = Workflow()
    workflow.addTask(ClosureTask("config") { _ in })
    func attachAll() -> UInt64 {
      let start = DispatchTime.now().uptimeNanoseconds
      ChaosProbe.declare(["app.point"])
      ChaosProbe.attach(workflow)
      ChaosProbe.attach(organizer)
      return DispatchTime.now().uptimeNanoseconds - start
    }
    let first = attachAll()
    let repeated = (0..<1000).map { _ in attachAll() }.sorted()
    let result: [String: Any] = [
      "first_ns": first, "repeated_p50_ns": repeated[repeated.count / 2], "active": ChaosProbe.isActive,
      "signal_handler_installed": CrashCapture.isInstalled,
    ]
    let data = try! JSONSerialization.data(withJSONObject: result, options: [.sortedKeys])
    print(String(decoding: data, as: UTF8.self))
  }
}
