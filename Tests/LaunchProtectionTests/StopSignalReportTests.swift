import Foundation
import LaunchProtection
import Synchronization
import XCTest

/// Who owns SIGTERM, as the stop signal observer is told: an owner found when the launch
/// starts is reported without `takenAfter` (it was there before the launch).
final class StopSignalReportTests: XCTestCase {
  func testSIGTERMIgnoredBeforeTheLaunchIsReportedOnceWithoutTakenAfter() throws {
    let previous = signal(SIGTERM, SIG_IGN)
    defer { signal(SIGTERM, previous) }
    let launches = SimulatedLaunches()
    var configuration = launches.configuration()
    configuration.ignoreTermination = true  // the organizer looks at SIGTERM's owner
    let organizer = LaunchOrganizer(configuration: configuration)
    let reports = Mutex<[StopSignalReport]>([])
    organizer.addStopSignalObserver { report in reports.withLock { $0.append(report) } }
    organizer.finishLaunching(
      policy: .threshold(100), launch: { organizer.launchingFinished() }, protect: { _ in })
    XCTAssertEqual(reports.withLock { $0 }, [StopSignalReport(owner: .ignored)])
    XCTAssertEqual(reports.withLock { $0 }.first?.stopsRecorded, false)
  }
}
