import LaunchProtection
import Synchronization
import XCTest

final class ProtectModeTests: XCTestCase {
  /// Something a held launch captures, to see when it is let go.
  private final class Captured: Sendable {}

  private func crash(_ launches: SimulatedLaunches, times: Int) {
    for _ in 0..<times {
      launches.organizer().finishLaunching(policy: .threshold(1000), launch: {}, protect: { _ in })
    }
  }

  func testProtectModeIsEnteredExactlyAtTheThreshold() {
    for threshold in [1, 2, 3, 5] {
      let launches = SimulatedLaunches()
      // After `threshold` unfinished launches the next one sees count == threshold.
      crash(launches, times: threshold)
      let below = SimulatedLaunches()
      crash(below, times: threshold - 1)
      let belowOrganizer = below.organizer()
      belowOrganizer.finishLaunching(
        policy: .threshold(threshold), launch: {}, protect: { _ in XCTFail("protect below threshold \(threshold)") })
      XCTAssertEqual(belowOrganizer.currentMode, .normal, "threshold \(threshold), count \(threshold - 1)")

      let organizer = launches.organizer()
      let protected = Mutex(false)
      organizer.finishLaunching(
        policy: .threshold(threshold), launch: { XCTFail("launch must be held in protect mode") },
        protect: { context in
          protected.withLock { $0 = true }
          XCTAssertEqual(context.count, threshold)
        })
      XCTAssertTrue(protected.withLock { $0 }, "threshold \(threshold)")
      guard case .protect(let level) = organizer.currentMode else {
        return XCTFail("not in protect mode at threshold \(threshold)")
      }
      XCTAssertEqual(level.number, 1)
    }
  }

  func testShouldProtectClosureReceivesTheCount() {
    let launches = SimulatedLaunches()
    crash(launches, times: 2)
    let counts = Mutex<[Int]>([])
    let ran = Mutex<[String]>([])
    launches.organizer().finishLaunching(
      policy: .custom { count in
        counts.withLock { $0.append(count) }
        return count > 1
      },
      launch: { ran.withLock { $0.append("launch") } },
      protect: { _ in ran.withLock { $0.append("protect") } })
    XCTAssertEqual(counts.withLock { $0 }, [2])
    XCTAssertEqual(ran.withLock { $0 }, ["protect"])
  }

  func testProtectFinishedRunsTheHeldLaunchInProcessOnce() throws {
    let launches = SimulatedLaunches()
    crash(launches, times: 2)
    let recorder = Recorder()
    let organizer = launches.organizer(observe: recorder)
    organizer.finishLaunching(
      policy: .threshold(2),
      launch: {
        recorder.note("launch ran")
        organizer.launchingFinished()
      },
      protect: { _ in
        recorder.note("repair ran")
        XCTAssertTrue(organizer.protectFinished())
      })
    XCTAssertEqual(
      recorder.all,
      [
        "launch count=2 mode=protect", "protect_enter count=2 level=1", "repair ran", "protect_finish level=1",
        "relaunch", "launch ran", "launching_finished",
      ])
    XCTAssertFalse(organizer.protectFinished(), "a second protectFinished must not relaunch again")
    XCTAssertEqual(recorder.count(of: "launch ran"), 1)
    XCTAssertEqual(try launches.state()?.consecutiveCrashes, 0)
    XCTAssertNil(try launches.state()?.attemptedProtectLevel)
  }

  /// The held launch runs once and is then let go: what it captured does not live on in the
  /// organizer (a server's whole start-up graph, for the life of the process).
  func testTheHeldLaunchIsReleasedOnceItRan() {
    let launches = SimulatedLaunches()
    for _ in 0..<2 { launches.organizer().finishLaunching(policy: .threshold(2), launch: {}, protect: { _ in }) }
    let organizer = launches.organizer()
    weak var released: Captured?
    do {
      let captured = Captured()
      released = captured
      organizer.finishLaunching(
        policy: .threshold(2), launch: { _ = captured }, protect: { _ in organizer.protectFinished() })
    }
    XCTAssertEqual(
      organizer.currentMode, .relaunched(after: ProtectLevel(number: 1, name: "protect", minimumCrashes: 2)))
    XCTAssertNil(released, "the held launch was let go after it ran")
    withExtendedLifetime(organizer) {}
  }

  func testProtectModeWithoutProtectFinishedNeverRunsTheLaunch() throws {
    let launches = SimulatedLaunches()
    crash(launches, times: 1)
    let organizer = launches.organizer()
    organizer.finishLaunching(
      policy: .threshold(1), launch: { XCTFail("launch ran without protectFinished") }, protect: { _ in })
    guard case .protect = organizer.currentMode else { return XCTFail("expected protect mode") }
    XCTAssertEqual(try launches.state()?.launchesInProgress.first?.phase, .protecting)
  }

  func testCrashDuringRelaunchCountsAgain() throws {
    let launches = SimulatedLaunches()
    crash(launches, times: 2)
    let organizer = launches.organizer()
    organizer.finishLaunching(policy: .threshold(2), launch: {}, protect: { _ in organizer.protectFinished() })
    // The relaunched launch never finished: it "dies" here.
    let next = launches.organizer()
    next.finishLaunching(policy: .threshold(2), launch: {}, protect: { _ in })
    XCTAssertEqual(next.status.decision?.count, 3)
  }

  func testLifeActionsInNormalModeRunImmediatelyOnce() {
    let launches = SimulatedLaunches()
    let recorder = Recorder()
    let organizer = launches.organizer(observe: recorder)
    organizer.finishLaunching(policy: .threshold(2), launch: {}, protect: { _ in })
    organizer.addLifeAction(
      key: "didBecomeActive", action: { recorder.note("action") }, protect: { recorder.note("protect action") })
    XCTAssertFalse(organizer.performAction(key: "didBecomeActive"), "nothing is held in normal mode")
    XCTAssertEqual(recorder.count(of: "action"), 1)
    XCTAssertEqual(recorder.count(of: "protect action"), 0)
  }

  func testLifeActionsInProtectModeRunProtectAndHoldTheActionUntilPerformed() {
    let launches = SimulatedLaunches()
    crash(launches, times: 2)
    let recorder = Recorder()
    let organizer = launches.organizer(observe: recorder)
    organizer.finishLaunching(policy: .threshold(2), launch: { recorder.note("launch") }, protect: { _ in })
    organizer.addLifeAction(
      key: "active", action: { recorder.note("active action") }, protect: { recorder.note("active protect") })
    organizer.addLifeAction(key: "background", action: { recorder.note("background action") })
    XCTAssertEqual(recorder.count(of: "active protect"), 1)
    XCTAssertEqual(recorder.count(of: "active action"), 0)
    XCTAssertEqual(recorder.count(of: "life_action background held"), 1)

    XCTAssertTrue(organizer.protectFinished())
    XCTAssertEqual(recorder.count(of: "launch"), 1)
    XCTAssertTrue(organizer.performAction(key: "active"))
    XCTAssertFalse(organizer.performAction(key: "active"), "an action runs at most once")
    XCTAssertEqual(recorder.count(of: "active action"), 1)
    XCTAssertTrue(organizer.performAction(key: "background"))
    XCTAssertEqual(recorder.count(of: "background action"), 1)
    // After protect finish, new life actions run at once.
    organizer.addLifeAction(key: "late", action: { recorder.note("late action") })
    XCTAssertEqual(recorder.count(of: "late action"), 1)
  }

  func testSecondFinishLaunchingIsIgnored() {
    let launches = SimulatedLaunches()
    let organizer = launches.organizer()
    let runs = Mutex(0)
    for _ in 0..<2 {
      organizer.finishLaunching(policy: .threshold(2), launch: { runs.withLock { $0 += 1 } }, protect: { _ in })
    }
    XCTAssertEqual(runs.withLock { $0 }, 1)
  }
}
