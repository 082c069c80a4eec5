import Failpoints
import Foundation

/// `chaos-target --bench-failpoints`: the cost of evaluating an unconfigured failpoint (one
/// relaxed atomic load), of a configured registry where this name is not set, and of an empty
/// loop, in ns per evaluation. Prints one JSON object (read by `chaos bench`).
enum FailpointCostBenchmark {
  static func run() {
    let iterations = 20_000_000
    let unarmed = FailpointRegistry()
    let armedElsewhere = FailpointRegistry()
    try? armedElsewhere.configure("task.other=off")
    var sink = 0
    func measure(_ count: Int, _ body: (Int) -> Void) -> Double {
      let start = MonotonicClock.nanoseconds()
      body(count)
      return Double(MonotonicClock.nanoseconds() - start) / Double(count)
    }
    var loop: [Double] = []
    var unconfigured: [Double] = []
    var otherConfigured: [Double] = []
    for _ in 0..<5 {
      loop.append(measure(iterations) { count in for index in 0..<count { sink &+= index & 1 } })
      unconfigured.append(
        measure(iterations) { count in
          for _ in 0..<count where unarmed.evaluate("task.network") != .proceed { sink &+= 1 }
        })
      otherConfigured.append(
        measure(iterations / 100) { count in
          for _ in 0..<count where armedElsewhere.evaluate("task.network") != .proceed { sink &+= 1 }
        })
    }
    let median: ([Double]) -> Double = { $0.sorted()[$0.count / 2] }
    let result: [String: Any] = [
      "empty_loop_ns": median(loop), "unconfigured_ns": median(unconfigured),
      "configured_other_name_ns": median(otherConfigured), "sink": sink & 1,
    ]
    let data = try! JSONSerialization.data(withJSONObject: result, options: [.sortedKeys])
    print(String(decoding: data, as: UTF8.self))
  }
}
