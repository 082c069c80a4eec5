import Foundation
import LaunchProtection
import XCTest

/// The documented range of persisted values at its edges: the last value inside is read, the
/// first one outside makes the file corrupt.
final class StateValidationTests: XCTestCase {
  /// Writes `state` as a bare JSON file (as a tool would) and reads it back.
  private func readBack(_ state: LaunchState) throws -> LaunchState? {
    let launches = SimulatedLaunches()
    try FileManager.default.createDirectory(atPath: launches.stateDirectory, withIntermediateDirectories: true)
    try JSONEncoder().encode(state).write(to: URL(fileURLWithPath: launches.stateDirectory + "/launch-state.json"))
    return try launches.state()
  }

  private func accepts(_ change: (inout LaunchState) -> Void, _ message: String) {
    var state = LaunchState()
    change(&state)
    XCTAssertNoThrow(try readBack(state), message)
  }

  private func rejects(_ change: (inout LaunchState) -> Void, _ message: String) {
    var state = LaunchState()
    change(&state)
    XCTAssertThrowsError(try readBack(state), message)
  }

  private func cause(pid: Int32? = 7, detail: String? = nil) -> CrashCause {
    CrashCause(type: "SIGSEGV", detail: detail, pid: pid, recordDate: Date(timeIntervalSince1970: 1_700_000_000))
  }

  func testIdentifiersUpToTheMaximumLength() {
    let longest = LaunchState.maximumIdentifierLength
    accepts({ $0.executableID = String(repeating: "e", count: longest) }, "\(longest) bytes")
    rejects({ $0.executableID = String(repeating: "e", count: longest + 1) }, "\(longest + 1) bytes")
    rejects({ $0.executableID = "" }, "empty")
  }

  func testDetailsUpToTheMaximumLength() {
    let longest = LaunchState.maximumDetailLength
    accepts({ $0.lastCrashCause = cause(detail: String(repeating: "d", count: longest)) }, "\(longest) bytes")
    rejects({ $0.lastCrashCause = cause(detail: String(repeating: "d", count: longest + 1)) }, "\(longest + 1)")
  }

  func testPidsArePositive() {
    accepts({ $0.lastCrashCause = cause(pid: 1) }, "cause pid 1")
    accepts({ $0.lastCrashCause = cause(pid: nil) }, "cause without a pid")
    rejects({ $0.lastCrashCause = cause(pid: 0) }, "cause pid 0")
    accepts(
      {
        $0.lastUncountedExit = UncountedExit(reason: .cleanExit, pid: 1, decisionDate: Date(timeIntervalSince1970: 1))
      }, "exit pid 1")
    rejects(
      {
        $0.lastUncountedExit = UncountedExit(reason: .cleanExit, pid: 0, decisionDate: Date(timeIntervalSince1970: 1))
      }, "exit pid 0")
    func launch(pid: Int32) -> LaunchRecord {
      LaunchRecord(
        process: ProcessIdentity(pid: pid, startTime: 1, bootID: "boot"), launchID: "l", phase: .launching,
        startDate: Date(timeIntervalSince1970: 1))
    }
    accepts({ $0.launchesInProgress = [launch(pid: 1)] }, "launch pid 1")
    rejects({ $0.launchesInProgress = [launch(pid: 0)] }, "launch pid 0")
  }

  func testLevelsAndCountsWithinTheirRange() {
    accepts({ $0.attemptedProtectLevel = 1 }, "level 1")
    accepts({ $0.attemptedProtectLevel = LaunchState.maximumLevel }, "the highest level")
    rejects({ $0.attemptedProtectLevel = 0 }, "level 0")
    rejects({ $0.attemptedProtectLevel = LaunchState.maximumLevel + 1 }, "past the highest level")
    accepts({ $0.consecutiveCrashes = LaunchState.maximumCount }, "the highest count")
    rejects({ $0.consecutiveCrashes = LaunchState.maximumCount + 1 }, "past the highest count")
  }

  func testTimesFrom1970UpToTheYear10000() {
    func exit(at time: Double) -> UncountedExit {
      UncountedExit(reason: .cleanExit, pid: 1, decisionDate: Date(timeIntervalSince1970: time))
    }
    let year10000 = 253_402_300_800.0
    accepts({ $0.lastUncountedExit = exit(at: 0) }, "1970")
    rejects({ $0.lastUncountedExit = exit(at: -1) }, "before 1970")
    accepts({ $0.lastUncountedExit = exit(at: year10000 - 1) }, "the last second of 9999")
    rejects({ $0.lastUncountedExit = exit(at: year10000) }, "the year 10000")
  }

  func testLaunchesInProgressUpToTheMaximum() {
    let most = LaunchState.maximumLaunchesInProgress
    let record = { (index: Int) in
      LaunchRecord(
        process: ProcessIdentity(pid: Int32(index + 1), startTime: 1, bootID: "b"), launchID: "l\(index)",
        phase: .launching, startDate: Date(timeIntervalSince1970: 1_700_000_000))
    }
    accepts({ $0.launchesInProgress = (0..<most).map(record) }, "\(most) launches in progress")
    rejects({ $0.launchesInProgress = (0...most).map(record) }, "\(most + 1) launches in progress")
  }
}
