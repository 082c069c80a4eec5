import Failpoints
import Foundation
import Synchronization
import XCTest

@testable import LaunchProtection

/// The state slots' CRC-32: the standard one, its tables, and the sliced loop against the plain one.
final class ChecksumTests: XCTestCase {
  /// The slot checksum is the standard CRC-32 (zlib's), so files written by any build, or by a
  /// tool, agree: the check value of "123456789" is 0xCBF43926.
  func testTheSlotChecksumIsTheStandardCRC32() {
    XCTAssertEqual(CRC32.checksum(Array("123456789".utf8)), 0xCBF4_3926)
    XCTAssertEqual(CRC32.checksum([UInt8]()), 0)
  }

  /// The checksum's tables are written out as a literal (no start-up cost): every entry must be
  /// the reflected polynomial's, not only those the check value happens to use. Table `k` is
  /// table `k - 1` advanced by one zero byte.
  func testTheChecksumTablesAreThePolynomials() {
    XCTAssertEqual(CRC32.tables.count, 8 * 256)
    for index in 0..<256 {
      var value = UInt32(index)
      for _ in 0..<8 { value = value & 1 == 1 ? (value >> 1) ^ 0xEDB8_8320 : value >> 1 }
      XCTAssertEqual(CRC32.tables[index], value, "table 0 entry \(index)")
    }
    for table in 1..<8 {
      for index in 0..<256 {
        let previous = CRC32.tables[(table - 1) * 256 + index]
        XCTAssertEqual(
          CRC32.tables[table * 256 + index], (previous >> 8) ^ CRC32.tables[Int(previous & 0xFF)],
          "table \(table) entry \(index)")
      }
    }
  }

  /// Eight bytes a step gives the byte-at-a-time checksum (the path a non-contiguous sequence
  /// takes) for every length and alignment around the step, and across a checksum in parts.
  func testTheSlicedChecksumMatchesTheByteAtATimeOne() {
    var generator = SystemRandomNumberGenerator()
    let bytes = (0..<80).map { _ in UInt8.random(in: 0...255, using: &generator) }
    for start in 0..<8 {
      for end in start...bytes.count {
        let part = bytes[start..<end]
        XCTAssertEqual(CRC32.checksum(part), CRC32.checksum(AnySequence(part)), "bytes \(start)..<\(end)")
        let split = (start + end) / 2
        let inParts = CRC32.finish(
          CRC32.update(CRC32.update(CRC32.start, with: bytes[start..<split]), with: bytes[split..<end]))
        XCTAssertEqual(inParts, CRC32.checksum(part), "bytes \(start)..<\(end) split at \(split)")
      }
    }
  }
}
