import ChaosKit
import Foundation

/// Latency distributions as percentile curves (x: percentile, y: µs on a log scale), one
/// coloured line per series, written as a standalone SVG.
public enum SVGChart {
  /// Renders `series` (name, samples in µs) with a title.
  public static func render(title: String, series: [(String, [Double])]) -> String {
    let width = 1000.0
    let height = 520.0
    let left = 70.0
    let right = 330.0
    let top = 40.0
    let bottom = 50.0
    let plotWidth = width - left - right
    let plotHeight = height - top - bottom
    let all = series.flatMap(\.1).filter { $0 > 0 }
    let low = log10(max(0.1, all.min() ?? 1))
    let high = log10(max(1, all.max() ?? 10)) + 0.05
    func y(_ value: Double) -> Double {
      top + plotHeight * (1 - (log10(max(value, 0.1)) - low) / max(0.001, high - low))
    }
    let colors = [
      "#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf", "#7f7f7f", "#bcbd22",
    ]
    var svg = """
      <svg xmlns="http://www.w3.org/2000/svg" width="\(Int(width))" height="\(Int(height))" font-family="sans-serif" font-size="12">
      <rect width="100%" height="100%" fill="white"/>
      <text x="\(left)" y="24" font-size="15">\(Markup.escape(title))</text>
      <line x1="\(left)" y1="\(top + plotHeight)" x2="\(left + plotWidth)" y2="\(top + plotHeight)" stroke="black"/>
      <line x1="\(left)" y1="\(top)" x2="\(left)" y2="\(top + plotHeight)" stroke="black"/>

      """
    for percentile in stride(from: 0, through: 100, by: 10) {
      let x = left + plotWidth * Double(percentile) / 100
      svg += "<text x=\"\(x)\" y=\"\(top + plotHeight + 18)\" text-anchor=\"middle\">p\(percentile)</text>\n"
    }
    var decade = floor(low)
    while decade <= high {
      let value = pow(10, decade)
      if decade >= low {
        svg +=
          "<line x1=\"\(left)\" y1=\"\(y(value))\" x2=\"\(left + plotWidth)\" y2=\"\(y(value))\" stroke=\"#ddd\"/>\n"
        svg +=
          "<text x=\"\(left - 6)\" y=\"\(y(value) + 4)\" text-anchor=\"end\">\(value >= 1 ? String(Int(value)) : String(value)) µs</text>\n"
      }
      decade += 1
    }
    for (index, (name, samples)) in series.enumerated() where !samples.isEmpty {
      let sorted = samples.sorted()
      let color = colors[index % colors.count]
      // Past the palette, the same colours come back dashed, so no two lines look alike.
      let dash = index >= colors.count ? " stroke-dasharray=\"6 4\"" : ""
      let points = sorted.enumerated().map { position, value in
        let x = left + plotWidth * (sorted.count == 1 ? 0.5 : Double(position) / Double(sorted.count - 1))
        return String(format: "%.1f,%.1f", x, y(value))
      }
      svg +=
        "<polyline fill=\"none\" stroke=\"\(color)\" stroke-width=\"2\"\(dash) points=\"\(points.joined(separator: " "))\"/>\n"
      let legendY = top + 16 * Double(index)
      svg +=
        "<line x1=\"\(left + plotWidth + 12)\" y1=\"\(legendY + 6)\" x2=\"\(left + plotWidth + 28)\" y2=\"\(legendY + 6)\" stroke=\"\(color)\" stroke-width=\"3\"\(dash)/>\n"
      svg += "<text x=\"\(left + plotWidth + 32)\" y=\"\(legendY + 10)\">\(Markup.escape(name))</text>\n"
    }
    return svg + "</svg>\n"
  }
}
