import Foundation
import XCTest

@testable import LaunchProtection

/// A state file's slots (`.processCrash` durability): the length field each slot carries, the
/// slot size's boundary and the sequence number's largest value.
final class StateSlotTests: XCTestCase {
  private let slotSize = 4096

  // MARK: The length field

  // The slot format's own `len` field: a slot whose length is damaged (too long, past the slot,
  // off by one, not digits) is not whole, and the reader falls back to the other slot; with
  // both damaged the file is corrupt and moved aside. Never a trap, never a wrong state.

  private let lengthKey = Array(#""len":""#.utf8)

  /// Two crashed launches: slot 0 holds seq 1 (count 0), slot 1 seq 2 (count 1).
  private func twoLaunches() throws -> (SimulatedLaunches, [UInt8]) {
    let launches = SimulatedLaunches()
    for _ in 0..<2 {
      launches.organizer().finishLaunching(policy: .threshold(1000), launch: {}, protect: { _ in })
    }
    XCTAssertEqual(try launches.state()?.consecutiveCrashes, 1)
    return (launches, Array(try Data(contentsOf: URL(fileURLWithPath: path(launches)))))
  }

  private func path(_ launches: SimulatedLaunches) -> String { launches.stateDirectory + "/launch-state.json" }

  /// Where the 10 digits of `len` start in slot `slot`, and their value.
  private func lengthField(_ file: [UInt8], slot: Int) throws -> (offset: Int, value: Int) {
    let start = slot * slotSize
    let slice = Array(file[start..<(start + 200)])
    let key = try XCTUnwrap(
      (0..<(slice.count - lengthKey.count)).first { Array(slice[$0..<($0 + lengthKey.count)]) == lengthKey })
    let offset = start + key + lengthKey.count
    let value = try XCTUnwrap(Int(String(decoding: file[offset..<(offset + 10)], as: UTF8.self)))
    return (offset, value)
  }

  private func write(_ file: [UInt8], length: String, slot: Int, _ launches: SimulatedLaunches) throws {
    var damaged = file
    let offset = try lengthField(file, slot: slot).offset
    damaged.replaceSubrange(offset..<(offset + 10), with: Array(length.utf8))
    try Data(damaged).write(to: URL(fileURLWithPath: path(launches)))
  }

  private func padded(_ value: Int) -> String {
    let text = String(value)
    return String(repeating: "0", count: 10 - text.count) + text
  }

  func testADamagedLengthInTheNewestSlotFallsBackToTheOlderSlot() throws {
    let (launches, file) = try twoLaunches()
    let length = try lengthField(file, slot: 1).value
    let header = try lengthField(file, slot: 1).offset - slotSize + 10 + #"","crc":"12345678","state":"#.utf8.count
    let damages = [
      "9999999999", padded(slotSize - header), padded(slotSize - header - 1), padded(length + 1), padded(length - 1),
      padded(0), "00000003x2",
    ]
    for damage in damages {
      try write(file, length: damage, slot: 1, launches)
      let state = try XCTUnwrap(try launches.state(), damage)
      XCTAssertEqual(state.consecutiveCrashes, 0, "len \(damage): the older slot")
      XCTAssertEqual(state.launchesInProgress.count, 1, "len \(damage)")
    }
    // The sound length reads the newest slot again: the damage was the only difference.
    try write(file, length: padded(length), slot: 1, launches)
    XCTAssertEqual(try launches.state()?.consecutiveCrashes, 1)
  }

  func testDamagedLengthsInBothSlotsAreCorrupt() throws {
    let (launches, file) = try twoLaunches()
    var damaged = file
    for slot in 0..<2 {
      let (offset, value) = try lengthField(file, slot: slot)
      damaged.replaceSubrange(offset..<(offset + 10), with: Array(padded(value + 1).utf8))
    }
    try Data(damaged).write(to: URL(fileURLWithPath: path(launches)))
    let organizer = launches.organizer()
    organizer.finishLaunching(policy: .threshold(1000), launch: {}, protect: { _ in })
    XCTAssertEqual(organizer.status.decision?.count, 0)
    guard let problem = organizer.status.decision?.problems.first as StateProblem?, problem.code == .corrupt else {
      return XCTFail("expected corrupt, got \(String(describing: organizer.status.decision?.problems))")
    }
    let detail = problem.detail
    XCTAssertTrue(detail.contains("neither of the two state slots"), detail)
  }

  // MARK: The slot size

  // The slot size at its boundary: a state whose slot line (header, JSON, `}` and newline) is
  // exactly 4096 bytes fits the smallest slots; one byte more doubles them.

  /// Writes a state whose last crash cause's detail is `length` bytes long; returns the file's bytes.
  private func write(detailLength length: Int, in directory: String) throws -> [UInt8] {
    var state = LaunchState()
    state.lastCrashCause = CrashCause(
      type: "t", detail: String(repeating: "d", count: length), recordDate: Date(timeIntervalSince1970: 1))
    XCTAssertNil(StateStore(directory: directory).overwrite(state))
    return Array(try Data(contentsOf: URL(fileURLWithPath: directory + "/launch-state.json")))
  }

  /// How many bytes of slot 0 the line takes: up to and including its `}` and newline.
  private func lineLength(_ file: [UInt8]) throws -> Int {
    let text = String(decoding: file.prefix(slotSize), as: UTF8.self)
    let closing = try XCTUnwrap(text.utf8.lastIndex(of: UInt8(ascii: "}")))
    return text.utf8.distance(from: text.utf8.startIndex, to: closing) + 2
  }

  func testAStateThatExactlyFillsTheSmallestSlotFitsIt() throws {
    let directory = SimulatedLaunches().stateDirectory
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    let small = try write(detailLength: 100, in: directory)
    XCTAssertEqual(small.count, 2 * slotSize)
    // The padding left in the slot is what the detail may grow by.
    let exact = 100 + slotSize - (try lineLength(small))
    let full = try write(detailLength: exact, in: directory)
    XCTAssertEqual(full.count, 2 * slotSize, "a slot line of exactly \(slotSize) bytes fits")
    XCTAssertEqual(try lineLength(full), slotSize)
    XCTAssertEqual(try StateStore(directory: directory).read()?.lastCrashCause?.detail?.count, exact)
    let over = try write(detailLength: exact + 1, in: directory)
    XCTAssertEqual(over.count, 4 * slotSize, "one byte more does not fit")
    XCTAssertEqual(try StateStore(directory: directory).read()?.lastCrashCause?.detail?.count, exact + 1)
  }

  // MARK: The sequence number

  // The slot's sequence number at its largest (16 digits): the update that takes the last number
  // is written in place, and the one after it rewrites the file from sequence 1 — the state is
  // never lost on the way.

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
