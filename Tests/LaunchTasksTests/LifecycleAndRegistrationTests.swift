import Foundation
import LaunchTasks
import RegisteredTaskFixtures
import Synchronization
import XCTest

final class TestModuleTask: LaunchTask {
  let name = "test-module-task"
  var stage: String { "fixture-stage" }
  func run(_ context: TaskContext) {}
}

@section("launch_tasks") @used
let testModuleTaskRegistration: TaskRegistration = (0x4C61_756E_6368_5453, { registeredTask(TestModuleTask()) })

final class LifecycleAndRegistrationTests: XCTestCase {
  func testLifecycleEventsGoToFinishedTasksInDependencyOrder() throws {
    let log = RunLog()
    func task(_ name: String, after: [String] = [], fails: Bool = false) -> ClosureTask {
      ClosureTask(
        name, after: after, placement: .launchingThread, lifecycle: { log.append("\(name):\($0)") },
        body: { context in if fails { context.fail(POSIXError(.EIO)) } })
    }
    let workflow = Workflow()
    workflow.add([
      task("ui", after: ["auth"]), task("config"), task("auth", after: ["config"]), task("broken", fails: true),
    ])
    workflow.dispatch(lifecycleEvent: "early")  // before run: nobody has finished initialising
    try workflow.run()
    workflow.dispatch(lifecycleEvent: "didBecomeActive")
    workflow.dispatch(lifecycleEvent: "willTerminate")
    XCTAssertEqual(
      log.all,
      [
        "config:didBecomeActive", "auth:didBecomeActive", "ui:didBecomeActive", "config:willTerminate",
        "auth:willTerminate", "ui:willTerminate",
      ])
  }

  func testTasksRegisteredInTwoModulesAreDiscovered() throws {
    let names = RegisteredTasks.all().filter { $0.stage == "fixture-stage" }.map(\.name).sorted()
    XCTAssertEqual(names, ["fixture-module-task", "test-module-task"])
    let workflow = Workflow()
    workflow.addRegisteredTasks(stage: "fixture-stage")
    try workflow.run()
    XCTAssertEqual(workflow.states["fixture-module-task"], .finished)
    XCTAssertEqual(workflow.states["test-module-task"], .finished)
  }

  func testTimelineRendersTextAndJSON() throws {
    let workflow = Workflow()
    workflow.addTask(ClosureTask("first", placement: .launchingThread) { _ in usleep(2_000) })
    workflow.addTask(ClosureTask("second", placement: .launchingThread) { _ in usleep(2_000) })
    try workflow.run()
    let timeline = workflow.generateTimeline()
    XCTAssertEqual(timeline.entries.map(\.task), ["first", "second"])
    XCTAssertEqual(timeline.entries.map(\.lane), [0, 0], "sequential tasks share a lane")
    XCTAssertGreaterThanOrEqual(
      timeline.entries[1].startMicroseconds,
      timeline.entries[0].startMicroseconds + timeline.entries[0].durationMicroseconds)
    XCTAssertTrue(timeline.render().contains("lane 0 |[first"), timeline.render())
    let json = try JSONSerialization.jsonObject(with: Data(timeline.json().utf8)) as? [String: Any]
    XCTAssertEqual((json?["entries"] as? [[String: Any]])?.count, 2)
    XCTAssertNotNil(json?["total_us"])
  }
}
