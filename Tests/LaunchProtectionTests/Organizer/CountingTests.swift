import LaunchProtection
import XCTest

final class CountingTests: XCTestCase {
  /// Runs one simulated launch with a threshold policy and returns the count it saw.
  @discardableResult
  private func launch(_ launches: SimulatedLaunches, threshold: Int = 100, finish: Bool, recorder: Recorder? = nil)
    -> LaunchOrganizer
  {
    let organizer = launches.organizer(observe: recorder)
    organizer.finishLaunching(
      policy: .threshold(threshold),
      launch: { if finish { organizer.launchingFinished() } },
      protect: { _ in })
    return organizer
  }

  func testFirstLaunchSeesZeroAndWritesSentinelBeforeLaunchCode() throws {
    let launches = SimulatedLaunches()
    let organizer = launches.organizer()
    let sentinelSeenInLaunch = expectation(description: "launch ran")
    organizer.finishLaunching(
      policy: .threshold(2),
      launch: {
        // The sentinel must already be durable when launch code starts.
        let state = try? launches.state()
        XCTAssertEqual(state?.launchesInProgress.count, 1)
        XCTAssertEqual(state?.consecutiveCrashes, 0)
        sentinelSeenInLaunch.fulfill()
      },
      protect: { _ in XCTFail("protect must not run on a first launch") })
    wait(for: [sentinelSeenInLaunch], timeout: 1)
    XCTAssertEqual(organizer.status.decision?.count, 0)
    XCTAssertEqual(organizer.currentMode, .normal)
  }

  func testEachUnfinishedLaunchIncrementsTheCountOnce() throws {
    let launches = SimulatedLaunches()
    for expected in 0..<5 {
      let organizer = launch(launches, finish: false)
      XCTAssertEqual(organizer.status.decision?.count, expected, "launch \(expected + 1)")
      XCTAssertEqual(organizer.status.decision?.countedCrashes.count, expected == 0 ? 0 : 1)
    }
    XCTAssertEqual(try launches.state()?.consecutiveCrashes, 4)
  }

  func testCleanLaunchResetsTheCount() throws {
    let launches = SimulatedLaunches()
    launch(launches, finish: false)
    launch(launches, finish: false)
    let finished = launch(launches, finish: true)
    XCTAssertEqual(finished.status.decision?.count, 2)
    XCTAssertEqual(finished.currentMode, .finished)
    XCTAssertEqual(try launches.state()?.consecutiveCrashes, 0)
    XCTAssertEqual(try launches.state()?.launchesInProgress, [])
    XCTAssertEqual(launch(launches, finish: false).status.decision?.count, 0)
  }

  func testInterleavedCrashesNeverAccumulate() throws {
    let launches = SimulatedLaunches()
    var seen: [Int] = []
    for finish in [false, true, false, true, false, true] {
      seen.append(launch(launches, threshold: 2, finish: finish).status.decision!.count)
    }
    XCTAssertEqual(seen, [0, 1, 0, 1, 0, 1])
  }

  func testCrashAfterLaunchingFinishedIsRecordedButNeverCounted() throws {
    let launches = SimulatedLaunches()
    let recorder = Recorder()
    let organizer = launch(launches, finish: true, recorder: recorder)
    organizer.handleException("SIGSEGV", detail: "after launch")
    // The process now "dies"; the next launch must not count it.
    XCTAssertEqual(launch(launches, finish: false).status.decision?.count, 0)
    let cause = try XCTUnwrap(try launches.state()?.lastCrashCause)
    XCTAssertEqual(cause.type, "SIGSEGV")
    XCTAssertTrue(cause.afterLaunch)
    XCTAssertEqual(recorder.count(of: "exception SIGSEGV after_launch=true"), 1)
  }

  func testHandleExceptionDuringLaunchRecordsCauseWithoutChangingCount() throws {
    let launches = SimulatedLaunches()
    let organizer = launch(launches, finish: false)
    organizer.handleException("NSInvalidArgumentException")
    let state = try XCTUnwrap(try launches.state())
    XCTAssertEqual(state.lastCrashCause?.type, "NSInvalidArgumentException")
    XCTAssertEqual(state.lastCrashCause?.afterLaunch, false)
    XCTAssertEqual(state.consecutiveCrashes, 0)
    XCTAssertEqual(launch(launches, finish: false).status.decision?.count, 1)
  }

  func testLaunchOfAProcessStillAliveIsNotACrash() throws {
    let launches = SimulatedLaunches()
    let running = launch(launches, finish: false)
    launches.keepAlive(running.configuration.environment.current().pid)
    let second = launch(launches, finish: false)
    XCTAssertEqual(second.status.decision?.count, 0)
    XCTAssertEqual(second.status.decision?.ignored.map(\.reason), [.stillRunning])
    XCTAssertEqual(try launches.state()?.launchesInProgress.count, 2)
  }

  func testRebootBetweenLaunchesIsNotCounted() throws {
    let launches = SimulatedLaunches()
    launch(launches, finish: false)
    launches.bootID.withLock { $0 = "boot-B" }
    let afterReboot = launch(launches, finish: false)
    XCTAssertEqual(afterReboot.status.decision?.count, 0)
    XCTAssertEqual(afterReboot.status.decision?.ignored.map(\.reason), [.reboot])
    XCTAssertEqual(try launches.state()?.lastUncountedExit?.reason, .reboot)
    // Opting out counts it.
    var configuration = launches.configuration()
    configuration.ignoreReboots = false
    launches.bootID.withLock { $0 = "boot-C" }
    let strict = LaunchOrganizer(configuration: configuration)
    strict.finishLaunching(policy: .threshold(5), launch: {}, protect: { _ in })
    XCTAssertEqual(strict.status.decision?.count, 1)
  }

  /// `machineIdentity`: a changed boot id is a reboot only on the same machine; a launch that
  /// died unfinished on another machine (its state directory moved) counts.
  func testALaunchFromAnotherMachineCountsAndARebootOfThisOneDoesNot() throws {
    let launches = SimulatedLaunches()
    func launch(on machine: String?) -> LaunchOrganizer {
      var configuration = launches.configuration()
      configuration.machineIdentity = machine
      let organizer = LaunchOrganizer(configuration: configuration)
      organizer.finishLaunching(policy: .threshold(100), launch: {}, protect: { _ in })
      return organizer
    }
    _ = launch(on: "node-a")
    XCTAssertEqual(try launches.state()?.launchesInProgress.first?.process.machine, "node-a")
    launches.bootID.withLock { $0 = "boot-B" }
    let moved = launch(on: "node-b")
    XCTAssertEqual(moved.status.decision?.count, 1, "died on node-a, counted on node-b")
    XCTAssertEqual(moved.status.decision?.countedCrashes.map(\.process.machine), ["node-a"])
    launches.bootID.withLock { $0 = "boot-C" }
    let rebooted = launch(on: "node-b")
    XCTAssertEqual(rebooted.status.decision?.count, 1, "node-b rebooted: not counted")
    XCTAssertEqual(rebooted.status.decision?.ignored.map(\.reason), [.reboot])
    // Without a name on either side, every change of boot id stays a reboot.
    launches.bootID.withLock { $0 = "boot-D" }
    XCTAssertEqual(launch(on: nil).status.decision?.ignored.map(\.reason), [.reboot])
  }

  func testNewBinaryResetsTheCount() throws {
    let launches = SimulatedLaunches()
    launch(launches, finish: false)
    launch(launches, finish: false)
    XCTAssertEqual(launch(launches, finish: false).status.decision?.count, 2)
    launches.executable.withLock { $0 = "build-2" }
    let fresh = launch(launches, threshold: 1, finish: false)
    XCTAssertEqual(fresh.status.decision?.count, 0)
    XCTAssertEqual(fresh.status.decision?.resetByNewBinary, true)
    XCTAssertEqual(fresh.currentMode, .normal)
    XCTAssertEqual(launch(launches, finish: false).status.decision?.count, 1)
  }
}
