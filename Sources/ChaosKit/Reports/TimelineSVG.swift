import Foundation

/// A scenario's launches as inline SVG: per launch a header with its time axis, then one row
/// per process: its phases as coloured stretches, its tasks as a thin lane under them, markers
/// for what happened at an instant (each with a tooltip), and how it ended on the right.
package enum TimelineSVG {
  static let width = 1120.0
  static let labelWidth = 250.0
  static let barWidth = 600.0
  static let rowHeight = 34.0
  static let headerHeight = 22.0

  /// The SVG element for a scenario's result. `links` gives a process's failure anchor.
  package static func render(_ groups: [LaunchGroup], anchor: (ProcessResult) -> String) -> String {
    var body = ""
    var y = 4.0
    for group in groups {
      body += header(group, y: y)
      y += headerHeight
      for row in group.rows {
        body += self.row(row, scale: barWidth / Double(group.nanoseconds), y: y, anchor: anchor(row.result))
        y += rowHeight
      }
      y += 6
    }
    return """
      <svg class="timeline" xmlns="http://www.w3.org/2000/svg" width="\(Int(width))" height="\(Int(y))" \
      viewBox="0 0 \(Int(width)) \(Int(y))" role="img">\(body)</svg>
      """
  }

  private static func header(_ group: LaunchGroup, y: Double) -> String {
    let repeatText = group.iteration > 1 ? " (repeat \(group.iteration))" : ""
    let processes = group.rows.count > 1 ? " · \(group.rows.count) processes at once" : ""
    var text = """
      <g class="launch-header" data-launch="\(group.launch)"><text x="4" y="\(y + 15)" class="launch-title">\
      launch \(group.launch)\(repeatText)\(processes)</text>
      """
    for fraction in [0.0, 0.25, 0.5, 0.75, 1.0] {
      let x = labelWidth + fraction * barWidth
      let anchor = fraction == 0 ? "start" : fraction == 1 ? "end" : "middle"
      text += """
        <line class="tick" x1="\(fmt(x))" y1="\(y + 18)" x2="\(fmt(x))" y2="\(y + 22 + rowHeight * Double(group.rows.count))"/>\
        <text class="axis" x="\(fmt(x))" y="\(y + 15)" text-anchor="\(anchor)">\(duration(UInt64(fraction * Double(group.nanoseconds))))</text>
        """
    }
    return text + "</g>"
  }

  private static func row(_ row: LaunchRow, scale: Double, y: Double, anchor: String) -> String {
    let process = row.result
    let failed = !process.failures.isEmpty
    let x = { (time: UInt64) -> Double in labelWidth + min(barWidth, Double(time) * scale) }
    var svg = """
      <g class="row\(failed ? " failed" : "")" data-launch="\(process.launch)" data-process="\(process.process)" \
      data-pid="\(process.pid)" data-outcome="\(Markup.escape(process.outcomeText))">
      """
    if failed {
      svg +=
        "<rect class=\"failed-band\" x=\"0\" y=\"\(fmt(y))\" width=\"\(Int(width))\" height=\"\(fmt(rowHeight - 2))\"/>"
    }
    let saw = [process.count.map { "count \($0)" }, process.mode?.rawValue].compactMap { $0 }.joined(separator: " · ")
    let name = process.process > 1 || process.iteration > 1 ? "p\(process.process)" : "pid"
    svg += """
      <a href="#\(anchor)"><text class="row-label" x="4" y="\(fmt(y + 14))">\(failed ? "✗ " : "")\(name == "pid" ? "" : name + " ")\
      pid \(process.pid)</text><text class="row-saw" x="4" y="\(fmt(y + 27))">\(Markup.escape(saw.isEmpty ? "no launch event" : saw))</text></a>
      """
    for span in row.spans {
      let left = x(span.start)
      let title = "\(span.phase.title): \(duration(span.start)) – \(duration(span.end))"
      svg += """
        <rect class="phase \(span.phase.rawValue)" x="\(fmt(left))" y="\(fmt(y + 4))" width="\(fmt(max(1, x(span.end) - left)))" \
        height="14"><title>\(Markup.escape(title))</title></rect>
        """
    }
    for task in row.tasks {
      let left = x(task.start)
      let title =
        "task \(task.name)\(task.failed ? " (failed or unfinished)" : ""): \(duration(task.start)) – \(duration(task.end))"
      svg += """
        <rect class="task\(task.failed ? " bad" : "")" x="\(fmt(left))" y="\(fmt(y + 20))" width="\(fmt(max(1, x(task.end) - left)))" \
        height="6"><title>\(Markup.escape(title))</title></rect>
        """
    }
    for marker in row.markers {
      svg += self.marker(marker, x: x(marker.time), y: y + 11)
    }
    let ending = [process.endText, process.outcomeText]
    let crash = row.markers.first { $0.kind == "crash" }?.label
    let endText = (crash.map { [$0] } ?? ending).joined(separator: " · ")
    svg += """
      <text class="row-end\(failed ? " bad" : "")" x="\(fmt(labelWidth + barWidth + 8))" y="\(fmt(y + 14))">\
      \(Markup.escape(String(endText.prefix(44))))</text><text class="row-saw" x="\(fmt(labelWidth + barWidth + 8))" \
      y="\(fmt(y + 27))">\(duration(row.end - row.start))\(failed ? " · \(process.failures.count) failed" : "")</text></g>
      """
    return svg
  }

  private static func marker(_ marker: LaunchRow.Marker, x: Double, y: Double) -> String {
    let shape: String
    switch marker.kind {
    case "crash": shape = "<path d=\"M-6,-6 L6,6 M6,-6 L-6,6\"/>"
    case "failpoint": shape = "<path d=\"M-5,-9 L5,-9 L0,-1 Z\"/>"
    case "deadline": shape = "<circle r=\"6\"/><path d=\"M0,-4 L0,0 L3,2\"/>"
    case "supervisor": shape = "<path d=\"M0,-7 L7,0 L0,7 L-7,0 Z\"/>"
    case "notify": shape = "<circle r=\"3\" cy=\"9\"/>"
    case "request": shape = "<rect x=\"-4\" y=\"3\" width=\"8\" height=\"8\"/>"
    default: shape = "<path d=\"M-5,9 L5,9 L0,1 Z\"/>"
    }
    return """
      <g class="marker \(marker.kind)\(marker.bad ? " bad" : "")" transform="translate(\(fmt(x)),\(fmt(y)))" \
      data-label="\(Markup.escape(marker.label))">\(shape)<title>\(Markup.escape(marker.detail + " at " + duration(marker.time)))</title></g>
      """
  }

  /// `0.42 ms`, `41.2 ms`, `1.23 s`.
  package static func duration(_ nanoseconds: UInt64) -> String {
    let milliseconds = Double(nanoseconds) / 1e6
    if milliseconds >= 1000 { return String(format: "%.2f s", milliseconds / 1000) }
    if milliseconds >= 10 { return String(format: "%.1f ms", milliseconds) }
    return String(format: "%.2f ms", milliseconds)
  }

  private static func fmt(_ value: Double) -> String { String(format: "%.1f", value) }
}
