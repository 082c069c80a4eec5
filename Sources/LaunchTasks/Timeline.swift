#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// When each task ran: offsets from the workflow's start, with concurrent tasks on parallel lanes.
public struct Timeline: Codable, Sendable {
  /// One task's run.
  public struct Entry: Codable, Sendable, Equatable {
    /// Task name.
    public var task: String
    /// Start offset in microseconds.
    public var startMicroseconds: Double
    /// Duration in microseconds.
    public var durationMicroseconds: Double
    /// Row: tasks on different lanes overlapped in time.
    public var lane: Int
    /// The thread that ran it.
    public var thread: String
    /// The tasks it waited for (nil in timelines decoded from before this field existed).
    public var runsAfter: [String]?

    enum CodingKeys: String, CodingKey {
      case task, lane, thread
      case runsAfter = "runs_after"
      case startMicroseconds = "start_us"
      case durationMicroseconds = "duration_us"
    }
  }

  /// Entries by start time.
  public var entries: [Entry]
  /// From the first start to the last end, in microseconds.
  public var totalMicroseconds: Double
  /// CLOCK_MONOTONIC nanoseconds of the first start (what the offsets count from): the clock of
  /// ChaosProbe's events (`t`). Nil in timelines decoded from before this field existed.
  public var originNanoseconds: UInt64?

  enum CodingKeys: String, CodingKey {
    case entries
    case totalMicroseconds = "total_us"
    case originNanoseconds = "origin_ns"
  }

  init(spans: [(task: String, start: UInt64, end: UInt64, thread: String)], dependencies: [String: [String]] = [:]) {
    let sorted = spans.sorted { ($0.start, $0.task) < ($1.start, $1.task) }
    let origin = sorted.first?.start ?? 0
    var laneEnds: [UInt64] = []
    var entries: [Entry] = []
    for span in sorted {
      let lane = laneEnds.firstIndex { $0 <= span.start } ?? laneEnds.count
      if lane == laneEnds.count { laneEnds.append(span.end) } else { laneEnds[lane] = span.end }
      entries.append(
        Entry(
          task: span.task, startMicroseconds: Double(span.start - origin) / 1_000,
          durationMicroseconds: Double(span.end - span.start) / 1_000, lane: lane, thread: span.thread,
          runsAfter: dependencies[span.task] ?? []))
    }
    self.entries = entries
    originNanoseconds = sorted.first?.start
    totalMicroseconds = Double((sorted.map(\.end).max() ?? origin) - origin) / 1_000
  }

  /// The lanes drawn as bars `width` characters wide, then one line per task.
  public func render(width: Int = 72) -> String {
    guard totalMicroseconds > 0 else { return entries.map { "\($0.task) 0 µs" }.joined(separator: "\n") }
    let scale = Double(width) / totalMicroseconds
    var lines: [String] = []
    for lane in 0...(entries.map(\.lane).max() ?? 0) {
      var row = Array(repeating: Character(" "), count: width + 1)
      for entry in entries where entry.lane == lane {
        let start = min(width, Int(entry.startMicroseconds * scale))
        let end = max(start + 1, min(width + 1, Int((entry.startMicroseconds + entry.durationMicroseconds) * scale)))
        for column in start..<end { row[column] = "=" }
        for (offset, character) in "[\(entry.task)".enumerated() where start + offset < end {
          row[start + offset] = character
        }
      }
      lines.append("lane \(lane) |" + String(row) + "|")
    }
    let nameWidth = entries.map(\.task.count).max() ?? 0
    for entry in entries {
      let name = entry.task + String(repeating: " ", count: nameWidth - entry.task.count)
      lines.append(
        "\(name)  start \(Self.format("%9.1f", entry.startMicroseconds)) µs  duration \(Self.format("%9.1f", entry.durationMicroseconds)) µs  lane \(entry.lane)  \(entry.thread)"
      )
    }
    lines.append("total \(Self.format("%.1f", totalMicroseconds)) µs")
    return lines.joined(separator: "\n")
  }

  /// `value` as C's printf `format` (one `%f` conversion) writes it: what `String(format:)`
  /// gave, without Foundation.
  private static func format(_ format: StaticString, _ value: Double) -> String {
    func printed(capacity: Int) -> (bytes: [UInt8], needed: Int) {
      var buffer = [UInt8](repeating: 0, count: capacity)
      let needed = withVaList([value]) { arguments in
        format.utf8Start.withMemoryRebound(to: CChar.self, capacity: format.utf8CodeUnitCount + 1) { text in
          buffer.withUnsafeMutableBufferPointer { out in
            out.withMemoryRebound(to: CChar.self) { vsnprintf($0.baseAddress!, $0.count, text, arguments) }
          }
        }
      }
      return (buffer, Int(needed))
    }
    var result = printed(capacity: 64)
    // A huge value (1e300) needs more than 64 bytes: print again into a buffer that holds it.
    if result.needed >= 64 { result = printed(capacity: result.needed + 1) }
    return String(decoding: result.bytes.prefix(max(0, result.needed)), as: UTF8.self)
  }

  /// The timeline as JSON.
  public func json() -> String {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
    return (try? encoder.encode(self)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
  }

  /// Whether any two tasks ran at the same time.
  public var hasOverlap: Bool { entries.contains { $0.lane > 0 } }
}
