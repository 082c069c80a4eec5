import Foundation

/// The frame every HTML report shares: one self-contained document (inline CSS, SVG and a few
/// lines of script; no fonts, images or scripts from anywhere else), so it opens from a CI
/// artifact download with no network.
package enum HTMLPage {
  /// A complete document around `body`.
  package static func document(title: String, body: String) -> String {
    """
    <!DOCTYPE html>
    <html lang="en"><head><meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>\(Markup.escape(title))</title>
    <style>\(style)</style>
    </head><body>
    \(body)
    <script>\(script)</script>
    </body></html>

    """
  }

  /// The phase colours and marker shapes, drawn once at the top.
  package static var legend: String {
    var items = LaunchRow.Phase.allCases.map { phase in
      "<span class=\"key\"><svg width=\"18\" height=\"12\"><rect class=\"phase \(phase.rawValue)\" width=\"18\" height=\"12\"/></svg>\(phase.title)</span>"
    }
    items.append(
      "<span class=\"key\"><svg width=\"18\" height=\"12\"><rect class=\"task\" y=\"3\" width=\"18\" height=\"6\"/></svg>task</span>"
    )
    let markers = [
      ("failpoint", "failpoint fired", "<path d=\"M-5,-9 L5,-9 L0,-1 Z\"/>"),
      ("crash", "crash", "<path d=\"M-6,-6 L6,6 M6,-6 L-6,6\"/>"),
      ("deadline", "launch deadline", "<circle r=\"6\"/><path d=\"M0,-4 L0,0 L3,2\"/>"),
      ("supervisor", "supervisor signal", "<path d=\"M0,-7 L7,0 L0,7 L-7,0 Z\"/>"),
      ("notify", "sd_notify", "<circle r=\"3\"/>"),
      ("request", "request", "<rect x=\"-4\" y=\"-4\" width=\"8\" height=\"8\"/>"),
      ("stop", "stop / clean exit", "<path d=\"M-5,5 L5,5 L0,-3 Z\"/>"),
    ]
    items += markers.map { kind, title, shape in
      "<span class=\"key\"><svg width=\"18\" height=\"18\"><g class=\"marker \(kind)\" transform=\"translate(9,\(kind == "failpoint" ? 14 : 9))\">\(shape)</g></svg>\(title)</span>"
    }
    return "<div class=\"legend\">\(items.joined())</div>"
  }

  /// A histogram of values (µs) as inline SVG, with p50, p99 and max beside it.
  package static func histogram(_ values: [Double], unit: String, empty: String) -> String {
    guard let low = values.min(), let high = values.max() else { return "<p>\(Markup.escape(empty))</p>" }
    let sorted = values.sorted()
    func percentile(_ p: Double) -> Double {
      sorted[min(sorted.count - 1, Int((Double(sorted.count) * p).rounded(.up)) - 1)]
    }
    let bins = 20
    // A few slow outliers (a first crash that faults its code in) would squeeze the rest into
    // one bar: past a 20× spread the bins are logarithmic.
    let logarithmic = low > 0 && high / low > 20
    let scale = { (value: Double) -> Double in logarithmic ? log(value) : value }
    let width = max((scale(high) - scale(low)) / Double(bins), 1e-9)
    let edge = { (index: Int) -> Double in
      logarithmic ? exp(scale(low) + Double(index) * width) : low + Double(index) * width
    }
    var counts = Array(repeating: 0, count: bins)
    for value in values { counts[min(bins - 1, Int((scale(value) - scale(low)) / width))] += 1 }
    let tallest = Double(counts.max() ?? 1)
    var bars = ""
    for (index, count) in counts.enumerated() where count > 0 {
      let height = 60 * Double(count) / tallest
      bars += """
        <rect class="bin" x="\(index * 14)" y="\(String(format: "%.1f", 62 - height))" width="12" \
        height="\(String(format: "%.1f", height))"><title>\(count) between \(String(format: "%.1f", edge(index))) and \
        \(String(format: "%.1f", edge(index + 1))) \(unit)</title></rect>
        """
    }
    return """
      <div class="histogram"><svg width="\(bins * 14)" height="80">\(bars)\
      <text x="0" y="76" class="axis">\(String(format: "%.1f", low))</text>\
      <text x="\(bins * 14)" y="76" class="axis" text-anchor="end">\(String(format: "%.1f", high)) \(unit)</text></svg>\
      <span>n=\(values.count) · p50 \(String(format: "%.1f", percentile(0.5))) · p99 \(String(format: "%.1f", percentile(0.99))) · \
      max \(String(format: "%.1f", high)) \(unit)\(logarithmic ? " (bins on a log scale)" : "")</span></div>
      """
  }

  private static let style = """
    body{font:14px/1.4 system-ui,-apple-system,"Segoe UI",sans-serif;margin:0 24px 48px;color:#1d2330;background:#fff}
    h1{font-size:22px;margin:18px 0 8px}h2{font-size:17px;margin:22px 0 8px}
    table{border-collapse:collapse;margin:6px 0}td,th{border:1px solid #d5d9e0;padding:3px 8px;text-align:left;vertical-align:top}
    th{background:#f2f4f7}pre{background:#f6f7f9;padding:8px;overflow:auto;margin:4px 0;white-space:pre-wrap}
    .summary td:first-child{font-weight:600}span.passed,.ok-text{color:#1a7f37}span.failed,span.error,.bad{color:#cf222e}span.skipped{color:#0969da}
    .legend{display:flex;flex-wrap:wrap;gap:4px 16px;margin:8px 0}.key{display:inline-flex;gap:5px;align-items:center}
    .toolbar{margin:10px 0;display:flex;gap:10px}.toolbar button{font:inherit;padding:3px 10px}
    section.scenario{border:1px solid #d5d9e0;border-radius:6px;margin:10px 0;padding:0 10px}
    section.scenario.failed,section.scenario.error{border-color:#cf222e}
    section.scenario>details>summary{cursor:pointer;padding:8px 0;font-weight:600}
    body.only-failing section.scenario.passed{display:none}
    .crash{color:#82071e}
    svg.timeline{display:block;font-size:11px;margin:4px 0}
    .launch-title{font-weight:600;font-size:12px}.axis{fill:#6a7280;font-size:10px}.tick{stroke:#e3e6eb}
    .row-label{font-size:12px;fill:#1d2330}.row-saw{fill:#6a7280;font-size:10px}.row-end{font-size:11px}.row-end.bad{fill:#cf222e}
    .failed-band{fill:#ffebe9}
    .phase.starting{fill:#c9ced6}.phase.launching{fill:#4c8bf5}.phase.repair{fill:#f59f00}
    .phase.relaunch{fill:#8e5cd9}.phase.after-launch{fill:#2da44e}
    .task{fill:#8a94a6}.task.bad{fill:#cf222e}
    .marker{stroke-width:2;fill:none}.marker.crash{stroke:#cf222e;stroke-width:3}
    .marker.failpoint{fill:#d4a72c;stroke:#7d5e00;stroke-width:1}.marker.deadline{stroke:#8250df;fill:#fff}
    .marker.supervisor{fill:#fb8500;stroke:#7a3e00;stroke-width:1}.marker.notify{fill:#0969da;stroke:none}
    .marker.request{fill:#2da44e;stroke:#116329;stroke-width:1}.marker.request.bad{fill:#cf222e;stroke:#82071e}
    .marker.stop,.marker.problem,.marker.task{fill:#1b7c83;stroke:none}.marker.problem.bad,.marker.task.bad{fill:#cf222e}
    .histogram{display:flex;gap:12px;align-items:center}.bin{fill:#4c8bf5}
    .failure{border-left:3px solid #cf222e}.skip{border-left:3px solid #0969da}.frames{font-size:12px;color:#57606a;margin:0;padding-left:16px}
    tr.failing td{background:#fff5f5}
    """

  private static let script = """
    document.body.dataset.script='ready';
    document.querySelectorAll('[data-action]').forEach(function(b){b.addEventListener('click',function(){
      var a=b.dataset.action;
      if(a==='failing'){document.body.classList.toggle('only-failing');}
      else{document.querySelectorAll('section.scenario>details').forEach(function(d){d.open=(a==='expand');});}
    });});
    if(location.hash==='#all'){document.querySelectorAll('section.scenario>details').forEach(function(d){d.open=true;});}
    else if(location.hash){var t=document.getElementById(location.hash.slice(1));
      if(t){var d=t.closest('details');if(d){d.open=true;}t.scrollIntoView();}}
    """
}
