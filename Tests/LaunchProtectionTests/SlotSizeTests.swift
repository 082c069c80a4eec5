import Foundation
import LaunchProtection
import XCTest

/// The slot size at its boundary: a state whose slot line (header, JSON, `}` and newline) is
/// exactly 4096 bytes fits the smallest slots; one byte more doubles them.
final class SlotSizeTests: XCTestCase {
  private let slotSize = 4096

  /// Writes a state whose last crash cause's detail is `length` bytes long; returns the file's bytes.
  private func write(detailLength length: Int, in directory: String) throws -> [UInt8] {
    var state = LaunchState()
    state.lastCrashCause = CrashCause(type: "t", detail: String(repeating: "d", count: length), recordedAt: 1)
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
}
