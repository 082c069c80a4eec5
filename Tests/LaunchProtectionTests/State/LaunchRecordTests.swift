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

  /// The timestamps are `Date`s; Codable still writes 0.2.0's keys, as seconds since 1970.
  func testCodableKeepsTheSecondsSince1970AndTheirKeys() throws {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    func json(_ value: some Encodable) throws -> String { String(decoding: try encoder.encode(value), as: UTF8.self) }
    var record = LaunchRecord(
      process: ProcessIdentity(pid: 7, startTime: 8, bootID: "b"), launchID: "l", phase: .launching,
      startDate: Date(timeIntervalSince1970: 1_700_000_000.25))
    record.stopRequestDate = Date(timeIntervalSince1970: 1_700_000_001)
    record.waitingFor = "db"
    XCTAssertEqual(
      try json(record),
      #"{"launchID":"l","phase":"launching","process":{"bootID":"b","pid":7,"startTime":8},"#
        + #""startedAt":1700000000.25,"stopRequestedAt":1700000001,"waitingFor":"db"}"#)
    XCTAssertEqual(
      try json(CrashCause(type: "SIGSEGV", recordDate: Date(timeIntervalSince1970: 2))),
      #"{"afterLaunch":false,"recordedAt":2,"type":"SIGSEGV"}"#)
    XCTAssertEqual(
      try json(UncountedExit(reason: .reboot, pid: 3, decisionDate: Date(timeIntervalSince1970: 4))),
      #"{"decidedAt":4,"pid":3,"reason":"reboot"}"#)
    let outage = DependencyOutage(
      dependency: "db", launchesInARow: 2, pid: 5, decisionDate: Date(timeIntervalSince1970: 6))
    XCTAssertEqual(outage.decisionDate.timeIntervalSince1970, 6)
    XCTAssertEqual(try JSONDecoder().decode(DependencyOutage.self, from: try JSONEncoder().encode(outage)), outage)
    XCTAssertEqual(outage.since, outage.decisionDate, "a record without the first outage's time (before 1.0)")
    let streak = DependencyOutage(
      dependency: "db", launchesInARow: 3, pid: 5, decisionDate: Date(timeIntervalSince1970: 6),
      since: Date(timeIntervalSince1970: 1))
    XCTAssertEqual(
      try json(streak), #"{"decidedAt":6,"dependency":"db","firstDecidedAt":1,"launchesInARow":3,"pid":5}"#)
    XCTAssertEqual(try JSONDecoder().decode(DependencyOutage.self, from: try JSONEncoder().encode(streak)), streak)
  }
}
