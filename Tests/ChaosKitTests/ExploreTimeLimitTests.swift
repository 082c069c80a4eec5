import Foundation
import TestSupport
import XCTest

@testable import ChaosKit

/// `chaos explore --time` is a hard limit (issue 42): a sequence under way when the time is up
/// is cut, its processes' groups killed, and reported as cut, not judged.
final class ExploreTimeLimitTests: XCTestCase {
  /// The reference app behind a wrapper that sleeps 30 s before each launch (not when listing
  /// its failpoints): any sequence takes at least 5 s — five launches, each ended by its
  /// watchdog at 1 s or later. Exploring for 0.5 s with two jobs ends within a few seconds,
  /// with both sequences cut and no process of theirs left, the wrapper's `sleep` included.
  func testTheSequencesUnderWayAreCutWhenTheTimeIsUp() throws {
    let folder = NSTemporaryDirectory() + "explore-time-\(getpid())-\(UUID().uuidString.prefix(8))"
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: folder) }
    let wrapper = folder + "/slow-target"
    let script = """
      #!/bin/sh
      [ -n "$CHAOS_LIST_FAILPOINTS" ] || sleep 30
      exec '\(ScenarioCase.executable("chaos-target"))' "$@"

      """
    try Data(script.utf8).write(to: URL(fileURLWithPath: wrapper))
    XCTAssertEqual(chmod(wrapper, 0o755), 0)
    let marker = "explore-time-\(UUID().uuidString)"
    var options = Explorer.Options(target: wrapper)
    options.seconds = 0.5
    options.jobs = 2
    options.environment = ["EXPLORE_TIME_MARKER": marker]
    options.outDirectory = folder + "/out"
    let started = Date()
    let report = try Explorer(options: options).run()
    let wall = Date().timeIntervalSince(started)
    XCTAssertLessThan(wall, 4, "an uncut sequence takes at least 5 s")
    XCTAssertLessThan(report.seconds, 4)
    XCTAssertEqual(report.cut, 2, "both jobs' sequences were under way")
    XCTAssertEqual(report.sequences, 0, "a cut sequence is not judged")
    XCTAssertGreaterThanOrEqual(report.launches, 2, "the cut launches' processes had started")
    XCTAssertNil(report.failure)
    XCTAssertEqual(Self.processes(withEnvironment: "EXPLORE_TIME_MARKER=" + marker), [], "orphans")
  }

  /// Pids of live processes whose environment holds `entry`.
  static func processes(withEnvironment entry: String) -> [String] {
    let names = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
    return names.filter { name in
      guard Int(name) != nil, let data = FileManager.default.contents(atPath: "/proc/\(name)/environ") else {
        return false
      }
      return data.split(separator: 0).contains { String(decoding: $0, as: UTF8.self) == entry }
    }
  }
}
