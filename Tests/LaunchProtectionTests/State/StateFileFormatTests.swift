import Foundation
import LaunchProtection
import Synchronization
import XCTest

/// The two-slot state file of `.processCrash` durability: updates alternate slots in place, a
/// torn or damaged newest slot falls back to the older one (what a power cut can do), and a bare
/// JSON file (version 1 of the library, or a tool) is read and converted.
final class StateFileFormatTests: XCTestCase {
  private var statePath: (SimulatedLaunches) -> String { { $0.stateDirectory + "/launch-state.json" } }

  /// A crashed launch (abandoned unfinished), or a finished one.
  @discardableResult
  private func launch(_ launches: SimulatedLaunches, finish: Bool = false) -> LaunchOrganizer {
    let organizer = launches.organizer()
    organizer.finishLaunching(
      policy: .threshold(1000), launch: { if finish { organizer.launchingFinished() } }, protect: { _ in })
    return organizer
  }

  private func bytes(_ launches: SimulatedLaunches) throws -> [UInt8] {
    Array(try Data(contentsOf: URL(fileURLWithPath: statePath(launches))))
  }

  private func inode(_ path: String) -> UInt64 {
    var info = stat()
    return stat(path, &info) == 0 ? UInt64(info.st_ino) : 0
  }

  func testUpdatesAlternateSlotsInPlaceWithIncreasingSequence() throws {
    let launches = SimulatedLaunches()
    launch(launches)
    let created = inode(statePath(launches))
    let first = try bytes(launches)
    XCTAssertEqual(first.count, 8192, "two 4 KiB slots")
    launch(launches)
    launch(launches)
    XCTAssertEqual(inode(statePath(launches)), created, "rewritten in place, not replaced")
    let text = String(decoding: try bytes(launches), as: UTF8.self)
    XCTAssertTrue(text.hasPrefix(#"{"slot":"launch-state","seq":"0000000000000003""#), text.prefix(60).description)
    XCTAssertTrue(text.dropFirst(4096).hasPrefix(#"{"slot":"launch-state","seq":"0000000000000002""#))
    XCTAssertEqual(try launches.state()?.consecutiveCrashes, 2)
  }

  func testATornNewestSlotFallsBackToTheOlderState() throws {
    let launches = SimulatedLaunches()
    launch(launches)  // seq 1 in slot 0: one launch in progress
    launch(launches)  // seq 2 in slot 1: count 1
    XCTAssertEqual(try launches.state()?.consecutiveCrashes, 1)
    // A power cut tore slot 1's write: half of it reached the disk.
    var file = try bytes(launches)
    for index in (4096 + 100)..<8192 { file[index] = 0 }
    try Data(file).write(to: URL(fileURLWithPath: statePath(launches)))
    let state = try XCTUnwrap(try launches.state())
    XCTAssertEqual(state.consecutiveCrashes, 0, "the older slot, whole")
    XCTAssertEqual(state.launchesInProgress.count, 1)
    // The next launch counts from the older state and writes over the torn slot; nothing is reported.
    let recorder = Recorder()
    let organizer = launches.organizer(observe: recorder)
    organizer.finishLaunching(policy: .threshold(1000), launch: {}, protect: { _ in })
    XCTAssertEqual(organizer.status.decision?.count, 1)
    XCTAssertEqual(organizer.status.decision?.problems, [])
    XCTAssertEqual(try launches.state()?.consecutiveCrashes, 1)
  }

  func testAFlippedSequenceDigitCannotPromoteAStaleSlot() throws {
    let launches = SimulatedLaunches()
    launch(launches)  // seq 1 in slot 0
    launch(launches)  // seq 2 in slot 1
    var file = try bytes(launches)
    // Slot 0's sequence "…0001" becomes "…9001": its checksum covers the sequence, so it is ignored.
    let digit = #"{"slot":"launch-state","seq":""#.utf8.count + 12
    file[digit] = UInt8(ascii: "9")
    try Data(file).write(to: URL(fileURLWithPath: statePath(launches)))
    XCTAssertEqual(try launches.state()?.consecutiveCrashes, 1, "slot 1 (seq 2) is still the state")
  }

  func testBothSlotsDamagedIsCorruptAndMovedAside() throws {
    let launches = SimulatedLaunches()
    launch(launches)
    launch(launches)
    var file = try bytes(launches)
    file[200] ^= 0xFF
    file[4096 + 200] ^= 0xFF
    try Data(file).write(to: URL(fileURLWithPath: statePath(launches)))
    let recorder = Recorder()
    let organizer = launches.organizer(observe: recorder)
    organizer.finishLaunching(policy: .threshold(1000), launch: {}, protect: { _ in })
    XCTAssertEqual(organizer.status.decision?.count, 0)
    guard let problem = organizer.status.decision?.problems.first as StateProblem?, problem.code == .corrupt else {
      return XCTFail("expected corrupt, got \(String(describing: organizer.status.decision?.problems))")
    }
    let movedTo = problem.movedTo
    let detail = problem.detail
    XCTAssertTrue(detail.contains("neither of the two state slots"), detail)
    let moved = try XCTUnwrap(movedTo)
    XCTAssertEqual(Array(try Data(contentsOf: URL(fileURLWithPath: moved))), file, "nothing lost")
  }

  func testABareJSONStateIsReadAndConverted() throws {
    let launches = SimulatedLaunches()
    try FileManager.default.createDirectory(atPath: launches.stateDirectory, withIntermediateDirectories: true)
    let legacy = """
      {"version": 1, "consecutiveCrashes": 3, "launchesInProgress": [], "attemptedProtectLevel": null}
      """
    try Data(legacy.utf8).write(to: URL(fileURLWithPath: statePath(launches)))
    XCTAssertEqual(try launches.state()?.consecutiveCrashes, 3)
    let organizer = launch(launches)
    XCTAssertEqual(organizer.status.decision?.count, 3)
    XCTAssertEqual(organizer.status.decision?.problems, [])
    XCTAssertTrue(String(decoding: try bytes(launches), as: UTF8.self).hasPrefix(#"{"slot":"launch-state""#))
    XCTAssertEqual(try launches.state()?.consecutiveCrashes, 3)
  }

  func testAStateTooBigForItsSlotsGrowsTheFile() throws {
    let launches = SimulatedLaunches()
    launch(launches)
    // 40 parallel launches still running do not fit 4 KiB.
    let organizers = (0..<40).map { _ in launches.organizer() }
    for (index, organizer) in organizers.enumerated() {
      launches.keepAlive(10_002 + Int32(index))
      organizer.finishLaunching(policy: .threshold(1000), launch: {}, protect: { _ in })
    }
    let size = try bytes(launches).count
    XCTAssertGreaterThan(size, 8192)
    XCTAssertEqual(size % 2, 0)
    XCTAssertEqual(try launches.state()?.launchesInProgress.count, 40, "every running launch's sentinel kept")
    XCTAssertEqual(try launches.state()?.consecutiveCrashes, 1, "the first launch counted once")
  }

  func testPowerLossModeWritesTheSameFormat() throws {
    let launches = SimulatedLaunches(durability: .powerLoss)
    launch(launches)
    launch(launches)
    XCTAssertTrue(String(decoding: try bytes(launches), as: UTF8.self).hasPrefix(#"{"slot":"launch-state""#))
    XCTAssertEqual(try launches.state()?.consecutiveCrashes, 1)
    // A store in the other mode reads it and goes on counting.
    let fast = SimulatedLaunches()
    try FileManager.default.createDirectory(atPath: fast.stateDirectory, withIntermediateDirectories: true)
    try Data(try bytes(launches)).write(to: URL(fileURLWithPath: statePath(fast)))
    XCTAssertEqual(try fast.state()?.consecutiveCrashes, 1)
  }

  func testOverwriteReplacesTheStateForTools() throws {
    let launches = SimulatedLaunches()
    launch(launches)
    var state = try XCTUnwrap(try launches.state())
    state.consecutiveCrashes = 4
    XCTAssertNil(StateStore(directory: launches.stateDirectory).overwrite(state))
    XCTAssertEqual(try launches.state()?.consecutiveCrashes, 4)
  }
}
