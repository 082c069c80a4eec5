import LaunchProtection
import XCTest

/// The `Configuration` switches set to their non-default value: each opt-out must change what
/// counts, against the same history with the default.
final class OptOutTests: XCTestCase {
  /// A launch with `configure` applied, abandoned unless `finish`.
  @discardableResult
  private func launch(
    _ launches: SimulatedLaunches, finish: Bool = false,
    _ configure: (inout LaunchOrganizer.Configuration) -> Void = { _ in }
  ) -> LaunchOrganizer {
    var configuration = launches.configuration()
    configure(&configuration)
    let organizer = LaunchOrganizer(configuration: configuration)
    organizer.finishLaunching(
      policy: .threshold(100), launch: { if finish { organizer.launchingFinished() } }, protect: { _ in })
    return organizer
  }

  /// A launch asked to stop (`stopRequested()`), then ended unfinished.
  private func stoppedLaunch(_ launches: SimulatedLaunches) throws {
    launch(launches).stopRequested()
    XCTAssertNotNil(try launches.state()?.launchesInProgress.first?.stopRequestDate)
  }

  func testWithoutIgnoreTerminationAStoppedLaunchCounts() throws {
    let strict = SimulatedLaunches()
    try stoppedLaunch(strict)
    let counted = launch(strict) { $0.ignoreTermination = false }
    XCTAssertEqual(counted.status.decision?.count, 1)
    XCTAssertEqual(counted.status.decision?.ignored.count, 0)
    XCTAssertNil(try strict.state()?.lastUncountedExit)
    // The default, against the same history: not counted.
    let lenient = SimulatedLaunches()
    try stoppedLaunch(lenient)
    let ignored = launch(lenient, finish: true) { $0.ignoreTermination = true }
    XCTAssertEqual(ignored.status.decision?.count, 0)
    XCTAssertEqual(ignored.status.decision?.ignored.map(\.reason), [.terminated])
  }

  func testWithoutResetOnNewBinaryTheCountGoesOn() throws {
    let launches = SimulatedLaunches()
    launch(launches)
    launch(launches)
    launches.executable.withLock { $0 = "build-2" }
    let kept = launch(launches) { $0.resetOnNewBinary = false }
    XCTAssertEqual(kept.status.decision?.count, 2)
    XCTAssertEqual(kept.status.decision?.resetByNewBinary, false)
    XCTAssertEqual(try launches.state()?.executableID, "build-2", "the new executable is still recorded")
    // The default resets on the next new binary.
    launches.executable.withLock { $0 = "build-3" }
    let reset = launch(launches)
    XCTAssertEqual(reset.status.decision?.count, 0)
    XCTAssertEqual(reset.status.decision?.resetByNewBinary, true)
  }

  func testWithoutIgnoreRebootsARebootedLaunchCounts() throws {
    let launches = SimulatedLaunches()
    launch(launches)
    launches.bootID.withLock { $0 = "boot-B" }
    let counted = launch(launches) { $0.ignoreReboots = false }
    XCTAssertEqual(counted.status.decision?.count, 1)
    XCTAssertEqual(counted.status.decision?.ignored.count, 0)
    launches.bootID.withLock { $0 = "boot-C" }
    let ignored = launch(launches)
    XCTAssertEqual(ignored.status.decision?.count, 1, "the default ignores the reboot")
    XCTAssertEqual(ignored.status.decision?.ignored.map(\.reason), [.reboot])
  }
}
