import Foundation
import XCTest

@testable import LaunchProtection

/// The slot's sequence number at its largest (16 digits): the update that takes the last number
/// is written in place, and the one after it rewrites the file from sequence 1 — the state is
/// never lost on the way.
final class SequenceLimitTests: XCTestCase {
  func testUpdatesAtAndPastTheLastSequenceNumberKeepTheState() throws {
    let launches = SimulatedLaunches()
    let directory = launches.stateDirectory
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    var state = LaunchState()
    state.consecutiveCrashes = 3
    XCTAssertNil(StateStore(directory: directory).overwrite(state))
    // The same state written back as one number short of the last.
    let path = directory + "/launch-state.json"
    let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
    guard case .success(let decoded) = StateFileFormat.decodeSlots(bytes) else {
      return XCTFail("the store wrote a slotted file")
    }
    let file = StateFileFormat.file(json: decoded.stateJSON, sequence: StateFileFormat.maximumSequence - 1)
    try Data(file.bytes).write(to: URL(fileURLWithPath: path))
    XCTAssertEqual(try StateStore(directory: directory).read()?.consecutiveCrashes, 3)

    // Updates as a launch makes them (in place), not overwrites (which start a new file).
    for count in [4, 5] {
      let (_, problems) = StateStore(directory: directory).update { $0.consecutiveCrashes = count }
      XCTAssertEqual(problems, [], "update to \(count)")
      XCTAssertEqual(try StateStore(directory: directory).read()?.consecutiveCrashes, count, "update to \(count)")
    }
    let layout = StateFileFormat.decodeSlots([UInt8](try Data(contentsOf: URL(fileURLWithPath: path))))
    guard case .success(let last) = layout, case .slots(_, _, let sequence) = last.layout else {
      return XCTFail("a slotted file after the updates")
    }
    XCTAssertEqual(sequence, 1, "past the last number the file starts again from 1")
  }
}
