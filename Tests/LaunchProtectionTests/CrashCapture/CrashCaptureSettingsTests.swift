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

  /// An installation the handler refuses (here a crash report path longer than its buffer)
  /// is an error the app sees, not a silent launch without crash capture.
  func testAnInstallTheHandlerRefusesThrows() {
    var options = CrashCapture.Options()
    options.reportDirectory = "/tmp/" + String(repeating: "d", count: 5_000)
    XCTAssertThrowsError(try CrashCapture.install(options)) { error in
      XCTAssertTrue("\(error)".contains("too long"), "\(error)")
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
