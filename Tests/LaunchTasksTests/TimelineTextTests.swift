import Foundation
import LaunchTasks
import XCTest

/// `Timeline.render()` prints its figures with C's printf, as `String(format:)` did before
/// LaunchTasks dropped Foundation: the same text for the same timeline.
final class TimelineTextTests: XCTestCase {
  func testTheFiguresAreWhatStringFormatWrote() throws {
    let figures: [(Double, Double)] = [(0, 0.05), (12.25, 1_234_567.891), (0.15, 99_999.95), (1e300, 2.5)]
    var entries: [String] = []
    for (index, (start, duration)) in figures.enumerated() {
      entries.append(
        #"{"task":"t\#(index)","start_us":\#(start),"duration_us":\#(duration),"lane":0,"thread":"launching"}"#)
    }
    let json = #"{"entries":[\#(entries.joined(separator: ","))],"total_us":1e300}"#
    let timeline = try JSONDecoder().decode(Timeline.self, from: Data(json.utf8))
    let lines = timeline.render().split(separator: "\n").map(String.init)
    for (index, (start, duration)) in figures.enumerated() {
      let expected =
        "t\(index)  start \(String(format: "%9.1f", start)) µs  duration \(String(format: "%9.1f", duration)) µs  "
        + "lane 0  launching"
      XCTAssertTrue(lines.contains(expected), "\(expected) in\n\(lines.joined(separator: "\n"))")
    }
    XCTAssertEqual(lines.last, "total \(String(format: "%.1f", 1e300)) µs")
  }
}
