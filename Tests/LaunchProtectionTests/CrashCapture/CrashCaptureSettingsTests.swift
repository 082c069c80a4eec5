import Failpoints
import Foundation
import Synchronization
import XCTest

@testable import LaunchProtection

/// Crash capture's defaults and what its calls answer with and without an installed handler.
final class CrashCaptureSettingsTests: XCTestCase {
  func testRefreshModulesSucceedsWithOrWithoutAnInstalledHandler() {
    XCTAssertTrue(CrashCapture.refreshModules())
  }

  func testUnwindTablesArePrefaultedByDefault() {
    XCTAssertTrue(CrashCapture.Options().prefaultUnwindTables, "the documented default")
  }

  func testCrashCaptureChainsToThePreviousHandlerByDefault() {
    XCTAssertTrue(CrashCapture.Options().chainToPreviousHandler, "the documented default")
  }

  /// An installation that cannot keep its promise (here a report directory whose name is too
  /// long to open) is an error the app sees, not a silent launch without crash reports.
  func testAnInstallTheHandlerRefusesThrows() {
    var options = CrashCapture.Options()
    options.reportDirectory = "/tmp/" + String(repeating: "d", count: 5_000)
    XCTAssertThrowsError(try CrashCapture.install(options)) { error in
      XCTAssertTrue("\(error)".contains("File name too long"), "\(error)")
    }
    XCTAssertFalse(CrashCapture.isInstalled, "nothing installed")
  }

  /// A report directory that belongs to another user is refused at install: no report is
  /// ever written into a directory someone else controls.
  func testAReportDirectoryOfAnotherUserIsRefused() throws {
    guard geteuid() == 0 else { throw XCTSkip("needs root to give the directory to nobody") }
    let directory = SimulatedLaunches().stateDirectory
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    XCTAssertEqual(chown(directory, 65534, 65534), 0)
    var options = CrashCapture.Options()
    options.reportDirectory = directory
    XCTAssertThrowsError(try CrashCapture.install(options)) { error in
      XCTAssertTrue("\(error)".contains("uid 65534"), "\(error)")
    }
  }

  /// The benchmark walk answers exactly when a handler is installed (nil, never a trap, without one).
  func testTheBenchmarkWalkAnswersOnlyWithAnInstalledHandler() {
    XCTAssertEqual(CrashCapture.timeStackWalk() != nil, CrashCapture.isInstalled)
  }

  /// A thread the app creates gets its alternate signal stack, and is told so.
  func testPreparingANewThreadSucceeds() {
    let prepared = Mutex<Bool?>(nil)
    let thread = Thread { prepared.withLock { $0 = CrashCapture.prepareCurrentThread() } }
    thread.start()
    let end = Date().addingTimeInterval(5)
    while prepared.withLock({ $0 }) == nil, Date() < end { usleep(1_000) }
    XCTAssertEqual(prepared.withLock { $0 }, true)
  }
}
