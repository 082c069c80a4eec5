import Failpoints
import Foundation
import LaunchTasks
import Synchronization
import TestSupport
import XCTest

/// `Timeline.traceEvents()` is a Trace Event Format file Perfetto opens: every event has the
/// required fields, one slice per task on its thread's track, slices nest per track, the
/// timestamps are the timeline's, and each dependency is a flow arrow.
final class TraceEventsTests: XCTestCase {
  func testTheEightTaskExampleAsATrace() throws {
    let started = Mutex([String: UInt64]())
    let workflow = Workflow()
    workflow.addObserver { event in
      if case .taskStarted(let name, _) = event { started.withLock { $0[name] = MonotonicClock.nanoseconds() } }
    }
    func task(_ name: String, _ placement: TaskPlacement = .launchingThread) -> ClosureTask {
      ClosureTask(name, placement: placement) { _ in usleep(2_000) }
    }
    workflow.addTask(task("A"))
    workflow.addTask(task("B"))
    workflow.addBlockingTasks([task("C"), task("D"), task("E", .concurrent), task("F", .concurrent)])
    workflow.addTask(task("G"))
    try workflow.run()
    let timeline = workflow.generateTimeline()

    let json = timeline.traceEvents(processName: "example", pid: 42)
    let (events, slices, problems) = TraceFormat.check(json)
    let document = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
    let other = try XCTUnwrap(document["otherData"] as? [String: String])
    XCTAssertEqual(other["origin_ns"], timeline.originNanoseconds.map(String.init), "ts 0 on the events' clock")
    XCTAssertEqual(problems, [])
    XCTAssertEqual(slices.map(\.name).sorted(), ["A", "B", "C", "D", "E", "F", "G"], "one slice per task")
    XCTAssertEqual(Set(slices.map(\.pid)), [42])
    for entry in timeline.entries {
      let slice = try XCTUnwrap(slices.first { $0.name == entry.task })
      XCTAssertEqual(slice.ts, entry.startMicroseconds, entry.task)
      XCTAssertEqual(slice.dur, entry.durationMicroseconds, entry.task)
      // The offsets are from `originNanoseconds`, on the clock of the events (ChaosProbe's `t`):
      // an observer that heard of the start a moment later saw nearly the same instant.
      let origin = try XCTUnwrap(timeline.originNanoseconds)
      let heard = try XCTUnwrap(started.withLock { $0[entry.task] })
      let start = origin + UInt64(entry.startMicroseconds * 1_000)
      XCTAssertLessThanOrEqual(start, heard + 1_000, entry.task)
      XCTAssertLessThan(heard - min(heard, start), 50_000_000, "\(entry.task) within 50 ms of its start event")
    }
    let threads = events.filter { $0["name"] as? String == "thread_name" }.compactMap {
      ($0["args"] as? [String: Any])?["name"] as? String
    }
    XCTAssertTrue(threads.contains("launching"), "\(threads)")
    XCTAssertEqual(Set(slices.filter { ["A", "B", "C", "D", "G"].contains($0.name) }.map(\.tid)).count, 1)
    let process = events.first { $0["name"] as? String == "process_name" }?["args"] as? [String: Any]
    XCTAssertEqual(process?["name"] as? String, "example")
    // A→B, B→{C,D,E,F}, {C,D,E,F}→G: one s and one f each.
    let flows = events.filter { $0["ph"] as? String == "s" }.compactMap { $0["name"] as? String }
    XCTAssertEqual(
      Set(flows), ["A → B", "B → C", "B → D", "B → E", "B → F", "C → G", "D → G", "E → G", "F → G"])
    XCTAssertEqual(timeline.entries.first { $0.task == "G" }?.runsAfter?.sorted(), ["C", "D", "E", "F"])
  }

  func testAnEmptyTimelineIsAnEmptyTrace() throws {
    let workflow = Workflow()
    try workflow.run()
    let (events, slices, problems) = TraceFormat.check(workflow.generateTimeline().traceEvents())
    XCTAssertEqual(problems, [])
    XCTAssertEqual(slices, [])
    XCTAssertEqual(events.count, 1, "only the process name")
  }
}
