import LaunchProtection
import LaunchProtectionLogging
import LaunchProtectionServer
import Logging
import XCTest

/// The stop-signal report in a server's log: a notice only when a stop can go unrecorded.
final class StopSignalLogTests: XCTestCase {
  private func report(_ owner: StopSignalReport.Owner, duringLaunch: Bool, shutdownPath: Bool) -> StopSignalReport {
    var report = StopSignalReport(owner: owner, takenAfter: duringLaunch ? .microseconds(6234) : nil)
    report.shutdownPathDeclared = shutdownPath
    return report
  }

  func testAnOwnerTakenDuringTheLaunchIsANoticeOnlyWithoutADeclaredShutdownPath() {
    for owner in [StopSignalReport.Owner.dispatchSource, .handler] {
      let unrecorded = report(owner, duringLaunch: true, shutdownPath: false)
      XCTAssertTrue(unrecorded.stopCanGoUnrecorded)
      XCTAssertEqual(LaunchEventLogger.level(of: unrecorded), .notice)
      XCTAssertTrue(unrecorded.description.contains("declareShutdownPath()"), unrecorded.description)
      XCTAssertTrue(unrecorded.description.contains("the next launch counts it"), unrecorded.description)

      let covered = report(owner, duringLaunch: true, shutdownPath: true)
      XCTAssertFalse(covered.stopCanGoUnrecorded)
      XCTAssertEqual(LaunchEventLogger.level(of: covered), .debug, "below swift-log's default level")
      XCTAssertTrue(covered.description.contains("stops are recorded: "), covered.description)
    }
  }

  func testSigtermThatIsNoStopStaysAWarningWhateverTheShutdownPath() {
    for owner in [StopSignalReport.Owner.ignored, .signalfd(descriptor: 7)] {
      for path in [false, true] {
        let report = report(owner, duringLaunch: false, shutdownPath: path)
        XCTAssertTrue(report.stopCanGoUnrecorded)
        XCTAssertEqual(LaunchEventLogger.level(of: report), .warning)
      }
    }
  }

  func testServerLaunchDeclaresItsShutdownPathAndAnOrganizerDoesNotByItself() {
    let server = SimulatedServer()
    let plain = server.organizer()
    XCTAssertFalse(plain.hasDeclaredShutdownPath)
    let protection = ServerLaunch(
      configuration: server.organizer().configuration, logger: Logger(label: "t") { _ in SwiftLogNoOpLogHandler() },
      crashCapture: false)
    XCTAssertTrue(protection.organizer.hasDeclaredShutdownPath, "its run() records a graceful shutdown as a stop")
    XCTAssertFalse(plain.hasDeclaredShutdownPath, "per organizer")
    plain.declareShutdownPath()
    plain.declareShutdownPath()
    XCTAssertTrue(plain.hasDeclaredShutdownPath)
  }
}
