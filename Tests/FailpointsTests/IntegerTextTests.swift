import Failpoints
import XCTest

/// `IntegerText` reads exactly what the standard library's `T(text, radix:)` reads, for every
/// integer type the package parses, at the edges (signs, limits, one past them) and at random.
final class IntegerTextTests: XCTestCase {
  static let edges = [
    "", "+", "-", "0", "-0", "+0", "7", "+7", "-7", "007", " 7", "7 ", "7a", "a7", "--7", "+-7", "-+7",
    "1_000", "1.0", "1e3", "0x10", "ff", "FF", "fF", "g", "127", "128", "-128", "-129", "255", "256",
    "32767", "32768", "-32768", "-32769", "2147483647", "2147483648", "-2147483648", "-2147483649",
    "4294967295", "4294967296", "9223372036854775807", "9223372036854775808", "-9223372036854775808",
    "-9223372036854775809", "18446744073709551615", "18446744073709551616", "7fffffffffffffff",
    "8000000000000000", "ffffffffffffffff", "10000000000000000", "٣", "７",
  ]

  func testEveryEdgeReadsAsTheStandardLibraryReadsIt() {
    for text in Self.edges {
      for radix in [10, 16] {
        check(text, radix: radix, as: Int.self)
        check(text, radix: radix, as: Int8.self)
        check(text, radix: radix, as: Int32.self)
        check(text, radix: radix, as: Int64.self)
        check(text, radix: radix, as: UInt8.self)
        check(text, radix: radix, as: UInt32.self)
        check(text, radix: radix, as: UInt64.self)
      }
    }
  }

  func testRandomTextReadsAsTheStandardLibraryReadsIt() {
    var generator = SystemRandomNumberGenerator()
    let alphabet = Array("0123456789abcdefABCDEF+- x")
    for _ in 0..<20_000 {
      let length = Int.random(in: 0...21, using: &generator)
      let text = String((0..<length).map { _ in alphabet.randomElement(using: &generator)! })
      check(text, radix: 10, as: Int.self)
      check(text, radix: 16, as: UInt64.self)
      check(text, radix: 10, as: Int32.self)
    }
  }

  /// A substring in the middle of a string reads as the same text on its own.
  func testASubstringReadsOnlyItsOwnCharacters() {
    let line = "fd: 12345 mask"
    let digits = line[line.index(line.startIndex, offsetBy: 4)..<line.index(line.startIndex, offsetBy: 9)]
    XCTAssertEqual(IntegerText.value(digits) as Int32?, 12345)
  }

  private func check<T: FixedWidthInteger>(_ text: String, radix: Int, as: T.Type) {
    XCTAssertEqual(
      IntegerText.value(text, radix: radix) as T?, T(text, radix: radix), "\(T.self) '\(text)' radix \(radix)")
  }
}
