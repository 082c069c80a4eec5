import Foundation

/// Checks a Trace Event Format file as Perfetto and chrome://tracing read it (tests only).
public enum TraceFormat {
  /// A complete slice (`"ph": "X"`).
  public struct Slice: Equatable {
    public var name: String
    public var pid: Int
    public var tid: Int
    public var ts: Double
    public var dur: Double
  }

  /// The events of a `{"traceEvents": […]}` document, and every rule it breaks: an event
  /// without `name`, `ph`, `ts`, `pid` or `tid`; slices on one track that overlap without
  /// nesting; a track without a `thread_name`; a flow start without its finish (or the other
  /// way), or one that does not sit in a slice of its track.
  public static func check(_ json: String) -> (events: [[String: Any]], slices: [Slice], problems: [String]) {
    guard let object = try? JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any],
      let events = object["traceEvents"] as? [[String: Any]]
    else { return ([], [], ["not a {\"traceEvents\": [...]} object"]) }
    var problems: [String] = []
    for (index, event) in events.enumerated() {
      let missing = ["name", "ph", "ts", "pid", "tid"].filter { event[$0] == nil }
      if !missing.isEmpty { problems.append("event \(index) lacks \(missing.joined(separator: ", ")): \(event)") }
    }
    func number(_ value: Any?) -> Double { (value as? NSNumber)?.doubleValue ?? .nan }
    let slices = events.filter { $0["ph"] as? String == "X" }.map { event in
      Slice(
        name: event["name"] as? String ?? "", pid: Int(number(event["pid"])), tid: Int(number(event["tid"])),
        ts: number(event["ts"]), dur: number(event["dur"]))
    }
    let named = Set(
      events.filter { $0["ph"] as? String == "M" && $0["name"] as? String == "thread_name" }.map {
        "\(Int(number($0["pid"])))/\(Int(number($0["tid"])))"
      })
    for (track, onTrack) in Dictionary(grouping: slices, by: { "\($0.pid)/\($0.tid)" }) {
      if !named.contains(track) { problems.append("track \(track) has no thread_name") }
      let sorted = onTrack.sorted { ($0.ts, -$0.dur) < ($1.ts, -$1.dur) }
      var open: [Slice] = []
      for slice in sorted {
        if slice.dur < 0 { problems.append("\(slice.name) has a negative duration") }
        while let last = open.last, last.ts + last.dur <= slice.ts { open.removeLast() }
        if let parent = open.last, slice.ts + slice.dur > parent.ts + parent.dur {
          problems.append("\(slice.name) overlaps \(parent.name) on track \(track) without nesting")
        }
        open.append(slice)
      }
    }
    let flows = Dictionary(grouping: events.filter { ["s", "f"].contains($0["ph"] as? String) }) {
      Int(number($0["id"]))
    }
    for (id, pair) in flows {
      let phases = pair.compactMap { $0["ph"] as? String }.sorted()
      if phases != ["f", "s"] { problems.append("flow \(id) has phases \(phases), not one s and one f") }
      for event in pair {
        let ts = number(event["ts"])
        let inside = slices.contains {
          $0.pid == Int(number(event["pid"])) && $0.tid == Int(number(event["tid"])) && $0.ts <= ts
            && ts <= $0.ts + $0.dur
        }
        if !inside { problems.append("flow \(id) \(event["ph"] ?? "") at \(ts) is in no slice of its track") }
      }
    }
    return (events, slices, problems)
  }
}
