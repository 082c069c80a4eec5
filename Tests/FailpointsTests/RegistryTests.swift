import Failpoints
import Foundation
import Synchronization
import XCTest

final class RegistryTests: XCTestCase {
  func testUnconfiguredRegistryProceedsWithoutBuildingTheName() {
    let registry = FailpointRegistry()
    let built = Mutex(0)
    func name() -> String {
      built.withLock { $0 += 1 }
      return "task.x"
    }
    XCTAssertEqual(registry.evaluate(name()), .proceed)
    XCTAssertEqual(built.withLock { $0 }, 0, "the name is only built when something is armed")
    XCTAssertFalse(registry.isArmed)
  }

  func testCountLimitsHowOftenATermFires() throws {
    let registry = FailpointRegistry()
    try registry.configure("io=2*return(EIO)")
    XCTAssertEqual(
      (0..<4).map { _ in registry.evaluate("io") }, [.fail(errno: EIO), .fail(errno: EIO), .proceed, .proceed])
    XCTAssertEqual(registry.evaluate("other"), .proceed)
  }

  func testChainFallsThroughToTheNextTerm() throws {
    let registry = FailpointRegistry()
    try registry.configure("io=1*return(EIO)->return(ENOSPC)")
    XCTAssertEqual(
      (0..<3).map { _ in registry.evaluate("io") }, [.fail(errno: EIO), .fail(errno: ENOSPC), .fail(errno: ENOSPC)])
  }

  func testOffDisablesAndZeroPercentNeverFires() throws {
    let registry = FailpointRegistry()
    try registry.configure("a=off;b=0%return(EIO);c=100%return(EIO)")
    XCTAssertEqual(registry.evaluate("a"), .proceed)
    XCTAssertTrue((0..<200).allSatisfy { _ in registry.evaluate("b") == .proceed })
    XCTAssertTrue((0..<200).allSatisfy { _ in registry.evaluate("c") == .fail(errno: EIO) })
  }

  func testProbabilityIsSeedableAndRoughlyRight() throws {
    func sample(seed: UInt64) throws -> [Bool] {
      let registry = FailpointRegistry()
      registry.seed(seed)
      try registry.configure("p=30%return(EIO)")
      return (0..<2000).map { _ in registry.evaluate("p") != .proceed }
    }
    let first = try sample(seed: 42)
    XCTAssertEqual(first, try sample(seed: 42), "the same seed reproduces the run")
    XCTAssertNotEqual(first, try sample(seed: 43))
    let fired = first.filter { $0 }.count
    XCTAssertTrue((500...700).contains(fired), "30% of 2000 fired \(fired) times")
  }

  func testConfigureIsAllOrNothing() throws {
    let registry = FailpointRegistry()
    XCTAssertThrowsError(try registry.configure("a=return(EIO);b=nonsense"))
    XCTAssertEqual(registry.evaluate("a"), .proceed, "a refused configuration applies nothing")
    XCTAssertTrue(registry.list().isEmpty)
  }

  func testDeclaredNamesRejectUnknownOnes() throws {
    let registry = FailpointRegistry()
    registry.declare(["launch.begin", "task.*"])
    XCTAssertNoThrow(try registry.configure("task.network=off;launch.begin=off"))
    XCTAssertThrowsError(try registry.configure("launch.finished=off;lunch.begin=segv")) { error in
      let text = "\(error)"
      XCTAssertTrue(text.contains("unknown failpoint 'launch.finished'"), text)
      XCTAssertTrue(text.contains("declared: launch.begin, task.*"), text)
    }
  }

  func testListRemoveAndScopes() throws {
    let registry = FailpointRegistry()
    try registry.configure("b=1*sleep(1)->off;a=50%return(ENOSPC)")
    XCTAssertEqual(registry.list().map(\.name), ["a", "b"])
    XCTAssertEqual(registry.list().map(\.actions), ["50.0%return(ENOSPC)", "1*sleep(1)->off"])
    registry.remove("a")
    XCTAssertEqual(registry.list().map(\.name), ["b"])
    registry.removeAll()
    XCTAssertFalse(registry.isArmed)
    do {
      let scope = try registry.scoped("s=return(EIO)")
      XCTAssertEqual(registry.evaluate("s"), .fail(errno: EIO))
      withExtendedLifetime(scope) {}
    }
    XCTAssertEqual(registry.evaluate("s"), .proceed, "the scope removed its failpoint")
  }

  func testObserverSeesTriggerJustBeforeTheAction() throws {
    let registry = FailpointRegistry()
    let triggers = Mutex<[FailpointTrigger]>([])
    registry.setObserver { trigger in triggers.withLock { $0.append(trigger) } }
    try registry.configure("io=return(EIO)")
    let before = MonotonicClock.nanoseconds()
    _ = registry.evaluate("io")
    let seen = triggers.withLock { $0 }
    XCTAssertEqual(seen.map(\.name), ["io"])
    XCTAssertEqual(seen.first?.action, .returnError(errno: EIO))
    XCTAssertGreaterThanOrEqual(seen.first?.monotonicNanoseconds ?? 0, before)
  }

  func testThreadActionRunsOnAFreshPreparedThread() throws {
    let registry = FailpointRegistry()
    let threads = Mutex<[String]>([])
    registry.setThreadPreparer { threads.withLock { $0.append("prepared") } }
    registry.setObserver { _ in threads.withLock { $0.append(Thread.isMainThread ? "main" : "background") } }
    try registry.configure("t=thread(sleep(1))")
    XCTAssertEqual(registry.evaluate("t"), .proceed)
    XCTAssertEqual(threads.withLock { $0 }, ["prepared", "background"])
  }
}
