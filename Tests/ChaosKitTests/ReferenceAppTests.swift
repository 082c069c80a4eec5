import ChaosKit
import Foundation
import TestSupport
import XCTest

/// The reference app's event stream, launch by launch, in real child processes.
final class ReferenceAppTests: XCTestCase {
  struct Launch {
    var termination: Termination?
    var events: [TargetEvent]
    var stderr: String
    func names() -> [String] { events.map(\.name) }
    func first(_ name: String) -> TargetEvent? { events.first { $0.name == name } }
  }

  /// Runs one launch; events are those this launch appended.
  func launch(_ directory: TemporaryDirectory, failpoints: String = "", app: String = "{}") throws -> Launch {
    let eventsPath = directory.file("events.ndjson")
    let before = try EventDecoder.decode(path: eventsPath).events.count
    let pid = ChildProcess.spawn(
      ChildProcess.product("chaos-target"),
      environment: [
        "CHAOS_STATE_DIR": directory.file("state"), "CHAOS_EVENTS": eventsPath, "CHAOS_FAILPOINTS": failpoints,
        "CHAOS_APP": app,
      ], stderr: directory.file("stderr.txt"))
    let termination = ChildProcess.wait(pid, timeout: 30)
    let events = Array(try EventDecoder.decode(path: eventsPath).events.dropFirst(before))
    let stderr = (try? String(contentsOfFile: directory.file("stderr.txt"), encoding: .utf8)) ?? ""
    return Launch(termination: termination, events: events, stderr: stderr)
  }

  func testCleanLaunchEventStream() throws {
    let run = try launch(TemporaryDirectory())
    XCTAssertEqual(run.termination, .exited(0))
    XCTAssertEqual(run.names().first, "launch")
    XCTAssertEqual(run.first("launch")?["count"]?.int, 0)
    XCTAssertEqual(run.first("launch")?["mode"]?.string, "normal")
    XCTAssertEqual(run.names().last, "launching_finished")
    let started = run.events.filter { $0.name == "task_start" }.compactMap { $0["task"]?.string }
    let ended = run.events.filter { $0.name == "task_end" }.compactMap { $0["task"]?.string }
    XCTAssertEqual(Set(started), ["config", "database", "network", "auth", "cache-warmup", "analytics", "ui"])
    XCTAssertEqual(Set(ended), Set(started))
    XCTAssertEqual(started.first, "config")
    XCTAssertEqual(ended.last, "ui")
    func endIndex(_ task: String) -> Int { ended.firstIndex(of: task)! }
    XCTAssertLessThan(endIndex("network"), endIndex("auth"))
    XCTAssertLessThan(endIndex("database"), endIndex("cache-warmup"))
    // Every event carries the same pid and a monotonic t after the launch began.
    XCTAssertEqual(Set(run.events.map(\.pid)).count, 1)
    XCTAssertTrue(run.events.allSatisfy { $0.time >= run.events[0].time })
  }

  func testACrashAtEachTaskNamesTheTaskAndCountsOnce() throws {
    let types = [
      "config": "ConfigTask", "database": "DatabaseTask", "network": "NetworkTask", "auth": "AuthTask",
      "cache-warmup": "CacheWarmupTask", "analytics": "AnalyticsTask", "ui": "UITask",
    ]
    let symbolizer = Symbolizer()
    for (task, type) in types.sorted(by: { $0.key < $1.key }) {
      let directory = TemporaryDirectory()
      let crashed = try launch(directory, failpoints: "task.\(task)=segv", app: "{\"threshold\": 5}")
      XCTAssertEqual(crashed.termination, .signaled(SIGSEGV), task)
      XCTAssertTrue(crashed.events.contains { $0.name == "task_start" && $0["task"]?.string == task }, task)
      XCTAssertFalse(crashed.events.contains { $0.name == "task_end" && $0["task"]?.string == task }, task)
      let record = try XCTUnwrap(crashed.events.first { $0.name == "crash" }.map { try CrashRecord(event: $0) }, task)
      let backtrace = symbolizer.symbolize(record)
      XCTAssertTrue(backtrace.contains("\(type).run"), "\(task): \(backtrace.description)")
      let next = try launch(directory, app: "{\"threshold\": 5}")
      XCTAssertEqual(next.first("launch")?["count"]?.int, 1, task)
    }
  }

  func testProtectModeRepairsAndRelaunchesInTheSameProcess() throws {
    let directory = TemporaryDirectory()
    let app = "{\"threshold\": 2, \"repairs\": [\"disable-task:network\", \"clear-cache\"]}"
    XCTAssertEqual(try launch(directory, failpoints: "task.network=segv", app: app).termination, .signaled(SIGSEGV))
    XCTAssertEqual(try launch(directory, failpoints: "task.network=fatal", app: app).termination, .signaled(SIGILL))
    // The bad release still crashes at `network`, but protect mode disables it.
    let protected = try launch(directory, failpoints: "task.network=segv", app: app)
    XCTAssertEqual(protected.termination, .exited(0))
    XCTAssertEqual(protected.first("launch")?["mode"]?.string, "protect")
    XCTAssertEqual(protected.first("launch")?["count"]?.int, 2)
    let names = protected.names()
    let order = [
      "protect_enter", "repair", "protect_finish", "relaunch", "task_disabled", "task_start", "launching_finished",
    ]
    var cursor = names.startIndex
    for name in order {
      guard let found = names[cursor...].firstIndex(of: name) else {
        return XCTFail("\(name) missing after \(names[..<cursor])")
      }
      cursor = found
    }
    XCTAssertFalse(protected.events.contains { $0.name == "task_start" && $0["task"]?.string == "network" })
    XCTAssertEqual(Set(protected.events.map(\.pid)).count, 1, "relaunched in the same process")
    let after = try launch(directory, failpoints: "task.network=segv", app: app)
    XCTAssertEqual(after.termination, .exited(0))
    XCTAssertEqual(after.first("launch")?["count"]?.int, 0)
  }

  func testProtectModeWithoutProtectFinishedNeverRunsTasks() throws {
    let directory = TemporaryDirectory()
    let app = "{\"threshold\": 1, \"protect_finish\": \"never\"}"
    _ = try launch(directory, failpoints: "task.auth=abort", app: app)
    let protected = try launch(directory, app: app)
    XCTAssertEqual(protected.termination, .exited(0))
    XCTAssertEqual(protected.first("launch")?["mode"]?.string, "protect")
    XCTAssertFalse(protected.names().contains("task_start"))
    XCTAssertFalse(protected.names().contains("launching_finished"))
  }

  func testHeldLifeActionIsPerformedOnceAfterProtectFinish() throws {
    let directory = TemporaryDirectory()
    let app = "{\"threshold\": 1, \"protect_finish\": \"after_life_actions\", \"life_actions\": [\"active\"]}"
    _ = try launch(directory, failpoints: "task.ui=segv", app: app)
    let run = try launch(directory, app: app)
    let life = run.events.filter { $0.name == "life_action" }.compactMap { $0["mode"]?.string }
    XCTAssertEqual(life, ["protected", "performed"])
    XCTAssertEqual(run.events.filter { $0.name == "life_action_run" }.count, 1)
    XCTAssertEqual(run.events.filter { $0.name == "life_action_protect_run" }.count, 1)
  }

  func testBadConfigurationFailsAtStartUpWithAClearMessage() throws {
    let directory = TemporaryDirectory()
    let badApp = try launch(directory, app: "{\"threshhold\": 2}")
    XCTAssertEqual(badApp.termination, .exited(2))
    XCTAssertTrue(badApp.stderr.contains("unknown field 'threshhold'"), badApp.stderr)
    let badSpec = try launch(directory, failpoints: "task.netwrk=segv")
    XCTAssertEqual(badSpec.termination, .exited(2))
    XCTAssertTrue(badSpec.stderr.contains("unknown failpoint 'task.netwrk'"), badSpec.stderr)
    XCTAssertTrue(badSpec.events.isEmpty, "nothing launched")
  }
}
