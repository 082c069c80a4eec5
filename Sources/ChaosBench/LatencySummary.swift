import ChaosKit
import Histogram

/// Percentiles of a set of durations, in microseconds, recorded in an HdrHistogram
/// (3 significant digits) so that long tails keep their resolution.
public struct LatencySummary: Codable, Sendable, Equatable {
  /// How many samples.
  public var count: Int
  /// Median.
  public var p50: Double
  /// 90th percentile.
  public var p90: Double
  /// 99th percentile.
  public var p99: Double
  /// Largest sample.
  public var max: Double
  /// Arithmetic mean.
  public var mean: Double

  /// Summarises durations given in nanoseconds.
  public init(nanoseconds samples: [UInt64]) {
    var histogram = Histogram<UInt64>(highestTrackableValue: 3_600_000_000_000, numberOfSignificantValueDigits: .three)
    for sample in samples { _ = histogram.record(Swift.max(1, sample)) }
    func micros(_ value: UInt64) -> Double { Double(value) / 1_000 }
    count = samples.count
    p50 = samples.isEmpty ? 0 : micros(histogram.valueAtPercentile(50))
    p90 = samples.isEmpty ? 0 : micros(histogram.valueAtPercentile(90))
    p99 = samples.isEmpty ? 0 : micros(histogram.valueAtPercentile(99))
    max = samples.isEmpty ? 0 : micros(samples.max()!)
    mean = samples.isEmpty ? 0 : micros(samples.reduce(0, +) / UInt64(samples.count))
  }
}
