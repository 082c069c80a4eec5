import Failpoints
import Foundation
import Synchronization
import XCTest

@testable import LaunchProtection

/// The persisted records' defaults: a crash cause, a process identity, a launch record.
final class LaunchRecordTests: XCTestCase {
  func testACrashCauseIsDuringTheLaunchByDefault() {
    XCTAssertFalse(CrashCause(type: "SIGSEGV", recordDate: Date(timeIntervalSince1970: 0)).afterLaunch)
  }

  func testAnIdentityKeepsTheMachineItNames() {
    let identity = ProcessIdentity(pid: 7, startTime: 8, bootID: "b", machine: "node-a")
    XCTAssertEqual(identity.machine, "node-a")
    XCTAssertNil(ProcessIdentity(pid: 7, startTime: 8, bootID: "b").machine)
  }

  func testALaunchRecordKeepsWhenItsStopWasRequested() {
    let record = LaunchRecord(
      process: ProcessIdentity(pid: 7, startTime: 8, bootID: "b"), launchID: "l", phase: .launching,
      startDate: Date(timeIntervalSince1970: 1), stopRequestDate: Date(timeIntervalSince1970: 5))
    XCTAssertEqual(record.stopRequestDate, Date(timeIntervalSince1970: 5))
    XCTAssertEqual(record.stopRequestedSeconds, 5, "the state file's seconds since 1970")
  }
}
