import Synchronization
import XCTest

@testable import LaunchProtection

/// `waitForDependency`: a launch that ends while it waits for a dependency is an outage, never
/// a launch crash; once the dependency answered, a death counts again.
final class DependencyWaitTests: XCTestCase {
  struct Refused: Error {}

  /// How many repairs ran.
  final class Repairs: Sendable {
    let count = Mutex(0)
  }

  /// One simulated launch of a threshold-2 organizer; `body` runs as its launch and returns
  /// whether it finishes. Returns the organizer (unfinished launches "die" when abandoned).
  @discardableResult
  private func launch(
    _ launches: SimulatedLaunches, repaired: Repairs? = nil, _ body: @escaping @Sendable (LaunchOrganizer) -> Bool
  ) -> LaunchOrganizer {
    let organizer = launches.organizer()
    organizer.finishLaunching(
      policy: .threshold(2),
      launch: { if body(organizer) { organizer.launchingFinished() } },
      protect: { _ in
        repaired?.count.withLock { $0 += 1 }
        organizer.protectFinished()
      })
    return organizer
  }

  func testLaunchesThatDieWaitingAreOutagesNotCrashesAndNeverRepair() throws {
    let launches = SimulatedLaunches()
    let repaired = Repairs()
    for start in 1...5 {
      let organizer = launch(launches, repaired: repaired) { organizer in
        organizer.waitForDependency("postgres") { XCTAssertEqual(organizer.status.waitingFor, ["postgres"]) }
        // Held again by a failed wait: the process now ends (abandoned, unfinished).
        _ = try? organizer.waitForDependency("postgres") { throw Refused() }
        return false
      }
      XCTAssertEqual(organizer.status.decision?.count, 0, "start \(start)")
      XCTAssertEqual(organizer.currentMode, LaunchMode.normal, "start \(start)")
      XCTAssertEqual(organizer.status.decision?.dependencyOutages.count, start == 1 ? 0 : 1, "start \(start)")
      XCTAssertEqual(organizer.status.dependencyOutage?.launchesInARow, start == 1 ? nil : start - 1)
      XCTAssertEqual(organizer.status.waitingFor, ["postgres"], "a failed wait still holds the launch")
      XCTAssertTrue(organizer.status.description.contains("waiting for postgres"), organizer.status.description)
      let state = try XCTUnwrap(try launches.state())
      XCTAssertEqual(state.launchesInProgress.last?.waitingFor, "postgres", "start \(start): durable")
    }
    XCTAssertEqual(repaired.count.withLock { $0 }, 0, "an outage never repairs")
    // The dependency is back: the next start serves, and the outage is forgotten.
    let back = launch(launches) { organizer in
      organizer.waitForDependency("postgres") {}
      return true
    }
    XCTAssertEqual(back.status.decision?.count, 0)
    XCTAssertEqual(back.status.decision?.dependencyOutages.map { $0.waitingFor }, ["postgres"])
    XCTAssertEqual(back.status.dependencyOutage?.launchesInARow, 5)
    XCTAssertFalse(
      back.status.description.contains("ended waiting"),
      "a finished launch no longer reports the outage: \(back.status.description)")
    XCTAssertEqual(back.currentMode, LaunchMode.finished)
    XCTAssertNil(try launches.state()?.lastDependencyOutage, "forgotten once a launch finished")
  }

  func testADeathAfterTheDependencyAnsweredCountsAndProtects() throws {
    let launches = SimulatedLaunches()
    let repaired = Repairs()
    for expected in 0...1 {
      let organizer = launch(launches, repaired: repaired) { organizer in
        let answer = organizer.waitForDependency("postgres") { 42 }
        XCTAssertEqual(answer, 42)
        XCTAssertEqual(organizer.status.waitingFor, [])
        return false  // the migration after the wait crashes
      }
      XCTAssertEqual(organizer.status.decision?.count, expected)
      XCTAssertNil(try launches.state()?.launchesInProgress.last?.waitingFor, "cleared once it answered")
    }
    let third = launch(launches, repaired: repaired) { _ in true }
    XCTAssertEqual(third.status.decision?.count, 2)
    XCTAssertEqual(repaired.count.withLock { $0 }, 1, "two real launch crashes protect")
  }

  func testAnOutageDoesNotResetTheCountOfRealCrashes() throws {
    let launches = SimulatedLaunches()
    launch(launches) { _ in false }  // a real crash
    launch(launches) { organizer in
      _ = try? organizer.waitForDependency("config") { throw Refused() }
      return false
    }
    let third = launch(launches) { _ in true }
    XCTAssertEqual(third.status.decision?.count, 1, "the outage neither counts nor resets")
    XCTAssertEqual(third.status.decision?.countedCrashes.count, 0)
    XCTAssertEqual(third.status.decision?.dependencyOutages.first?.waitingFor, "config")
  }

  func testTwoWaitsAtOnceHoldTheLaunchUntilBothAnswered() throws {
    let launches = SimulatedLaunches()
    let organizer = launch(launches) { organizer in
      organizer.waitForDependency("postgres") {
        organizer.waitForDependency("redis") {
          XCTAssertEqual(organizer.status.waitingFor, ["postgres", "redis"])
        }
        XCTAssertEqual(organizer.status.waitingFor, ["postgres"])
        XCTAssertEqual(try? launches.state()?.launchesInProgress.last?.waitingFor, "postgres")
      }
      return false
    }
    XCTAssertEqual(organizer.status.waitingFor, [])
    XCTAssertNil(try launches.state()?.launchesInProgress.last?.waitingFor)
  }

  func testOutsideALaunchTheWaitOnlyRunsItsBody() throws {
    let launches = SimulatedLaunches()
    let organizer = launches.organizer()
    let waits = Mutex<[DependencyWait]>([])
    organizer.observe { observation in
      if let wait = observation.dependencyWait { waits.withLock { $0.append(wait) } }
    }
    XCTAssertEqual(organizer.waitForDependency("postgres") { 7 }, 7)
    XCTAssertNil(try launches.state(), "nothing written before the launch")
    organizer.finishLaunching(policy: .threshold(2), launch: { organizer.launchingFinished() }, protect: { _ in })
    organizer.waitForDependency("postgres") {}
    XCTAssertEqual(waits.withLock { $0 }, [DependencyWait](), "no wait is reported outside a launch")
  }

  func testObserversAreToldEachStage() async throws {
    let launches = SimulatedLaunches()
    let organizer = launches.organizer()
    let waits = Mutex<[String]>([])
    organizer.observe { observation in
      if let wait = observation.dependencyWait { waits.withLock { $0.append("\(wait.dependency) \(wait.stage)") } }
    }
    _ = try await organizer.launch(policy: .threshold(2)) { _ in }
    let port = try await organizer.waitForDependency("postgres") { () async throws -> Int in
      XCTAssertEqual(organizer.status.waitingFor, ["postgres"])
      return 5432
    }
    XCTAssertEqual(port, 5432)
    do {
      try await organizer.waitForDependency("config") { () async throws in throw Refused() }
      XCTFail("the body's error is rethrown")
    } catch is Refused {}
    XCTAssertEqual(waits.withLock { $0 }, ["postgres waiting", "postgres answered", "config waiting", "config failed"])
    XCTAssertEqual(organizer.status.waitingFor, ["config"])
  }

  func testATypedThrowingBodyKeepsItsErrorType() throws {
    let launches = SimulatedLaunches()
    let organizer = launches.organizer()
    organizer.finishLaunching(policy: .threshold(2), launch: {}, protect: { _ in })
    func refuse() throws(Refused) -> Int { throw Refused() }
    do {
      _ = try organizer.waitForDependency("postgres") { () throws(Refused) -> Int in try refuse() }
      XCTFail("the body's error is rethrown")
    } catch {
      let typed: Refused = error  // `throws(Refused)`, not `any Error`
      _ = typed
    }
    XCTAssertEqual(organizer.status.waitingFor, ["postgres"], "held by the failed wait")
  }
}
