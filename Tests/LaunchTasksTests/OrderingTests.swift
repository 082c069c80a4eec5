import Failpoints
import Foundation
import LaunchTasks
import Synchronization
import XCTest

/// Records the order tasks ran in.
final class RunLog: Sendable {
  private let entries = Mutex<[String]>([])
  func append(_ entry: String) { entries.withLock { $0.append(entry) } }
  var all: [String] { entries.withLock { $0 } }
  func index(_ entry: String) -> Int { all.firstIndex(of: entry) ?? -1 }
}

/// Waits until `count` parties have arrived (or a timeout), proving they ran at the same time.
final class Rendezvous: Sendable {
  private let arrived = Mutex(0)
  let count: Int
  init(count: Int) { self.count = count }
  func arriveAndWait(timeout: Double = 5) -> Bool {
    arrived.withLock { $0 += 1 }
    let deadline = Date().addingTimeInterval(timeout)
    while arrived.withLock({ $0 }) < count {
      if Date() > deadline { return false }
      usleep(200)
    }
    return true
  }
}

final class OrderingTests: XCTestCase {
  func task(
    _ name: String, _ log: RunLog, placement: TaskPlacement = .launchingThread, priority: Int = 500,
    after: [String] = [], before: [String] = [], body: (@Sendable () -> Void)? = nil
  ) -> ClosureTask {
    ClosureTask(name, after: after, before: before, priority: priority, placement: placement) { _ in
      body?()
      log.append(name)
    }
  }

  func testTheEightTaskExample() throws {
    let log = RunLog()
    let together = Rendezvous(count: 2)
    let overlapped = Mutex([Bool]())
    let concurrent: @Sendable () -> Void = {
      let met = together.arriveAndWait()
      overlapped.withLock { $0.append(met) }
    }
    let workflow = Workflow()
    workflow.addTask(task("A", log))
    workflow.addTask(task("B", log))
    workflow.addBlockingTasks([
      task("C", log), task("D", log), task("E", log, placement: .concurrent, body: concurrent),
      task("F", log, placement: .concurrent, body: concurrent),
    ])
    workflow.addTask(task("G", log))
    workflow.addTask(task("H", log))
    try workflow.run()

    XCTAssertEqual(log.all.count, 8)
    XCTAssertEqual(Array(log.all.prefix(2)), ["A", "B"])
    XCTAssertEqual(Array(log.all.suffix(2)), ["G", "H"])
    XCTAssertEqual(Set(log.all[2..<6]), ["C", "D", "E", "F"], "the group is a barrier")
    XCTAssertLessThan(log.index("C"), log.index("D"), "launching-thread tasks of a group run in order")
    XCTAssertEqual(overlapped.withLock { $0 }, [true, true], "E and F ran at the same time")
    let timeline = workflow.generateTimeline()
    XCTAssertTrue(timeline.hasOverlap, timeline.render())
    XCTAssertEqual(Set(workflow.states.values), [.finished])
  }

  func testPriorityBreaksTiesThenDeclarationOrder() throws {
    let log = RunLog()
    let workflow = Workflow()
    workflow.add([
      task("late", log, priority: 900), task("first", log, priority: 100), task("tie-1", log, priority: 500),
      task("tie-2", log, priority: 500),
    ])
    try workflow.run()
    XCTAssertEqual(log.all, ["first", "tie-1", "tie-2", "late"])
  }

  func testDeclaredAfterAndBeforeDependencies() throws {
    let log = RunLog()
    let workflow = Workflow()
    workflow.add([
      task("ui", log, priority: 1, after: ["auth"]), task("auth", log, priority: 2, after: ["config"]),
      task("config", log, priority: 3), task("migrate", log, priority: 4, before: ["config"]),
    ])
    try workflow.run()
    XCTAssertEqual(log.all, ["migrate", "config", "auth", "ui"])
  }

  func testStructuralErrorsAreReportedBeforeAnythingRuns() {
    let log = RunLog()
    let cyclic = Workflow()
    cyclic.add([
      task("a", log, after: ["c"]), task("b", log, after: ["a"]), task("c", log, after: ["b"]), task("d", log),
    ])
    XCTAssertThrowsError(try cyclic.run()) { error in
      XCTAssertEqual(error as? WorkflowError, .cycle(["a", "b", "c", "a"]))
      XCTAssertEqual("\(error)", "dependency cycle: a → b → c → a")
    }
    let missing = Workflow()
    missing.add([task("a", log, after: ["ghost"])])
    XCTAssertThrowsError(try missing.run()) {
      XCTAssertEqual($0 as? WorkflowError, .missingDependency(task: "a", missing: "ghost"))
    }
    let duplicate = Workflow()
    duplicate.add([task("a", log), task("a", log)])
    XCTAssertThrowsError(try duplicate.run()) { XCTAssertEqual($0 as? WorkflowError, .duplicateName("a")) }
    XCTAssertEqual(log.all, [], "nothing ran")
  }

  func testAFailedTaskFailsItsDependentsOnly() throws {
    let log = RunLog()
    let workflow = Workflow()
    workflow.add([
      ClosureTask("database", placement: .launchingThread) { $0.fail(POSIXError(.EIO)) },
      task("cache", log, after: ["database"]), task("ui", log, after: ["cache"]), task("analytics", log),
    ])
    try workflow.run()
    XCTAssertEqual(log.all, ["analytics"])
    XCTAssertEqual(workflow.states["cache"], .failed("dependency 'database' failed"))
    XCTAssertEqual(workflow.states["ui"], .failed("dependency 'cache' failed"))
    XCTAssertEqual(workflow.states["analytics"], .finished)
  }

  func testAsynchronousTaskCompletesFromAnotherThread() throws {
    let log = RunLog()
    let workflow = Workflow()
    workflow.add([
      ClosureTask("fetch", completion: .asynchronous) { context in
        Thread.detachNewThread {
          usleep(20_000)
          log.append("fetched")
          context.complete()
        }
      },
      task("use", log, after: ["fetch"]),
    ])
    try workflow.run()
    XCTAssertEqual(log.all, ["fetched", "use"])
  }

  func testATaskThatNeverCompletesTimesOutNamingWhatIsPending() {
    var options = Workflow.Options()
    options.taskTimeout = .milliseconds(200)
    let workflow = Workflow(options: options)
    let log = RunLog()
    workflow.add([ClosureTask("stuck", completion: .asynchronous) { _ in }, task("after-stuck", log, after: ["stuck"])])
    XCTAssertThrowsError(try workflow.run()) { error in
      XCTAssertEqual(
        error as? WorkflowError, .timedOut(after: .milliseconds(200), running: ["stuck"], pending: ["after-stuck"]))
    }
  }

  func testWorkersArePreparedAndFailpointsFireInTheNamedTask() throws {
    let prepared = Mutex(0)
    var options = Workflow.Options()
    options.maxConcurrency = 2
    options.threadPreparer = { prepared.withLock { $0 += 1 } }
    options.failpoints = FailpointRegistryForTests.make("task.network=return(EIO)")
    let workflow = Workflow(options: options)
    let log = RunLog()
    workflow.add([task("network", log, placement: .concurrent), task("disk", log, placement: .concurrent)])
    try workflow.run()
    XCTAssertEqual(log.all, ["disk"])
    XCTAssertEqual(workflow.states["network"], .failed("failpoint task.network returned errno \(EIO)"))
    XCTAssertEqual(prepared.withLock { $0 }, 2)
  }
}

enum FailpointRegistryForTests {
  static func make(_ spec: String) -> FailpointRegistry {
    let registry = FailpointRegistry()
    try! registry.configure(spec)
    return registry
  }
}
