import ChaosKit
import Foundation
import TestSupport
import XCTest

/// What `chaos run --html` and `--trace` draw comes from the events each process wrote, kept in
/// its result before the artifacts of a passing scenario are deleted.
final class ReportTimelineTests: XCTestCase {
  let artifacts = TemporaryDirectory("report-timeline")
  let scenarios = TemporaryDirectory("report-scenarios")

  func run(_ yaml: String, keep: Bool = false) throws -> ScenarioResult {
    var options = RunOptions()
    options.keepArtifacts = keep
    options.referenceTarget = ChildProcess.product("chaos-target")
    options.artifactsDirectory = artifacts.path
    options.recordsTimeline = true
    let path = scenarios.file("scenario.yaml")
    try yaml.write(toFile: path, atomically: true, encoding: .utf8)
    return ScenarioRunner(options: options).run(try ScenarioLoader.load(path: path))
  }

  /// A crash, then two processes at once that see count 1 (`expectedCount` other than 1 fails).
  /// Each holds its launch open 300 ms, so the second reads the state before the first's
  /// `launchingFinished` resets the count, however late its spawn (without it, a second process
  /// spawned a few milliseconds late on a busy machine saw 0, as it should).
  func crashThenTwoAtOnce(expectedCount: Int) -> String {
    """
    name: crash then two at once
    app: { threshold: 5 }
    launches:
      - failpoints: "task.network=segv"
        expect: { outcome: crash, signal: SIGSEGV }
      - parallel: 2
        failpoints: "launch.finished=sleep(300)"
        expect: { outcome: finished, count: \(expectedCount) }
    """
  }

  func testATraceHasEveryTaskOfEveryProcessAtItsEventTime() throws {
    let result = try run(crashThenTwoAtOnce(expectedCount: 1))
    XCTAssertTrue(result.passed, result.messages.joined(separator: "\n"))
    XCTAssertNil(result.artifacts, "a passing scenario's artifacts are gone; its events are in the result")
    let timelines = result.processes.compactMap(\.timeline)
    XCTAssertEqual(timelines.count, 3)
    let json = try XCTUnwrap(ScenarioTrace.json(result))
    let (events, slices, problems) = TraceFormat.check(json)
    XCTAssertEqual(problems, [])
    XCTAssertEqual(Set(slices.map(\.pid)), Set(result.processes.map { Int($0.pid) }), "a process per launch process")
    let origin = try XCTUnwrap(timelines.map(\.spawned).min())
    for (process, timeline) in zip(result.processes, timelines) {
      let starts = timeline.events.filter { $0.event == "task_start" }
      XCTAssertFalse(starts.isEmpty)
      for start in starts {
        let name = try XCTUnwrap(start.text("task"))
        let slice = try XCTUnwrap(slices.first { $0.pid == Int(process.pid) && $0.name == name }, name)
        XCTAssertEqual(slice.ts, Double(start.t - origin) / 1_000, "\(name): ts is its task_start's t")
        if let end = timeline.events.first(where: { $0.event == "task_end" && $0.text("task") == name }) {
          XCTAssertEqual(slice.ts + slice.dur, Double(end.t - origin) / 1_000, accuracy: 0.001, name)
        }
      }
    }
    XCTAssertTrue(events.contains { $0["ph"] as? String == "s" }, "dependencies are flow arrows")
    XCTAssertTrue(events.contains { $0["ph"] as? String == "i" && $0["name"] as? String == "crash" })
  }

  func testTheHTMLDrawsARowPerProcessWithItsMarkersAndFailure() throws {
    let result = try run(crashThenTwoAtOnce(expectedCount: 3))
    XCTAssertEqual(result.status, .failed)
    let html = HTMLReport.render(
      [result],
      context: HTMLReport.Context(
        seconds: 1, seed: 7, targets: ["chaos-target"], reportDirectory: artifacts.path, command: "chaos run"))
    XCTAssertEqual(html.components(separatedBy: "<g class=\"row").count - 1, 3, "one row per process")
    XCTAssertTrue(html.contains("class=\"marker failpoint"))
    XCTAssertTrue(html.contains("class=\"marker crash bad"))
    XCTAssertTrue(html.contains("SIGSEGV in task network"))
    XCTAssertTrue(html.contains("expected count 3, saw 1"))
    XCTAssertTrue(html.contains("/launch-2-p1/stderr.txt\""), "links to the failing launch's artifacts")
    XCTAssertFalse(html.contains("href=\"/"), "artifact links are relative to the report")
    XCTAssertFalse(html.contains("src=\"http"), "nothing is loaded from the network")
  }

  func testTheReferenceAppWritesItsLaunchAsATrace() throws {
    let result = try run(
      """
      name: a traced launch
      app: { trace_file: launch.trace.json }
      launches:
        - expect: { outcome: finished }
      """, keep: true)
    XCTAssertTrue(result.passed, result.messages.joined(separator: "\n"))
    let folder = try XCTUnwrap(result.artifacts)
    let json = try String(contentsOfFile: folder + "/state/launch.trace.json", encoding: .utf8)
    let (_, slices, problems) = TraceFormat.check(json)
    XCTAssertEqual(problems, [])
    let document = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
    let origin = try XCTUnwrap(UInt64((document["otherData"] as? [String: String])?["origin_ns"] ?? ""))
    let starts = try XCTUnwrap(result.processes.first?.timeline).events.filter { $0.event == "task_start" }
    XCTAssertEqual(slices.map(\.name).sorted(), starts.compactMap { $0.text("task") }.sorted(), "one slice per task")
    for start in starts {
      let slice = try XCTUnwrap(slices.first { $0.name == start.text("task") })
      let sliceStart = origin + UInt64(slice.ts * 1_000)
      // The event is written just after the scheduler took the start time.
      XCTAssertLessThanOrEqual(sliceStart, start.t + 1_000, slice.name)
      XCTAssertLessThan(start.t - min(start.t, sliceStart), 20_000_000, "\(slice.name): its task_start is at its ts")
    }
  }
}
