/// Renders latency rows as an aligned plain-text table.
public enum BenchTable {
  /// One line per row: name, count, p50, p90, p99, max (µs).
  public static func render(_ rows: [(String, LatencySummary)]) -> String {
    let width = max(10, rows.map(\.0.count).max() ?? 0)
    func pad(_ text: String, _ size: Int, left: Bool = false) -> String {
      let fill = String(repeating: " ", count: max(0, size - text.count))
      return left ? text + fill : fill + text
    }
    func number(_ value: Double) -> String {
      value >= 100 ? String(Int(value.rounded())) : String(Double(Int(value * 10)) / 10)
    }
    var lines = [pad("", width, left: true) + ["n", "p50", "p90", "p99", "max"].map { pad($0, 10) }.joined()]
    for (name, summary) in rows {
      lines.append(
        pad(name, width, left: true) + pad(String(summary.count), 10)
          + [summary.p50, summary.p90, summary.p99, summary.max].map { pad(number($0), 10) }.joined())
    }
    return lines.joined(separator: "\n")
  }
}
