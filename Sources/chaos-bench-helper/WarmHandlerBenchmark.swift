import Foundation
import LaunchProtection

/// `chaos-target --bench-warm-handler`: the handler's walk-and-format path run repeatedly in one
/// process (nothing written): the first run is cold, the rest warm. Prints one JSON object.
enum WarmHandlerBenchmark {
  static func run() {
    try? CrashCapture.install(CrashCapture.Options())
    let samples = (0..<1000).map { _ in nestedWalk(depth: 8) }
    let warm = samples.dropFirst().sorted()
    func percentile(_ p: Double) -> Double { Double(warm[min(warm.count - 1, Int(Double(warm.count - 1) * p))]) / 1000 }
    let result: [String: Any] = [
      "first_us": Double(samples[0]) / 1000, "warm_p50_us": percentile(0.5), "warm_p99_us": percentile(0.99),
      "warm_max_us": Double(warm.last ?? 0) / 1000, "runs": samples.count,
    ]
    let data = try! JSONSerialization.data(withJSONObject: result, options: [.sortedKeys])
    print(String(decoding: data, as: UTF8.self))
  }

  /// A few real frames under the walk, about as deep as a task's crash.
  @inline(never)
  static func nestedWalk(depth: Int) -> UInt64 {
    depth == 0 ? (CrashCapture.timeStackWalk() ?? 0) : nestedWalk(depth: depth - 1) &+ 0
  }
}
