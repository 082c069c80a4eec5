import Foundation
import XCTest

@testable import LaunchProtection

/// What a process identity is read from: `/proc/<pid>/stat`'s start time and the kernel's boot id.
final class ProcessIdentityTests: XCTestCase {
  /// `/proc/<pid>/stat`'s start time is read digit by digit: every digit counts, anything else
  /// (or too many digits) is no number.
  func testProcStatNumbersAreReadDigitByDigit() {
    XCTAssertEqual(SystemProcessFacts.decimal(Array("1234567890"[...].utf8)[...]), 1_234_567_890)
    XCTAssertEqual(SystemProcessFacts.decimal(Array("9".utf8)[...]), 9)
    XCTAssertEqual(SystemProcessFacts.decimal(Array("0".utf8)[...]), 0)
    XCTAssertEqual(SystemProcessFacts.decimal(Array("18446744073709551615".utf8)[...]), UInt64.max)
    XCTAssertNil(SystemProcessFacts.decimal(Array("18446744073709551616".utf8)[...]), "overflow")
    XCTAssertNil(SystemProcessFacts.decimal([][...]), "empty")
    XCTAssertNil(SystemProcessFacts.decimal(Array("12a".utf8)[...]))
    XCTAssertNil(SystemProcessFacts.decimal(Array("-1".utf8)[...]))
    XCTAssertNil(SystemProcessFacts.decimal(Array("1/".utf8)[...]), "the byte below 0")
    XCTAssertNil(SystemProcessFacts.decimal(Array("1:".utf8)[...]), "the byte above 9")
    // And a real process: this one's start time, as the kernel counts it, is what it read.
    XCTAssertEqual(SystemProcessFacts.startTime(of: getpid()), SystemProcessFacts.currentIdentity.startTime)
    XCTAssertGreaterThan(SystemProcessFacts.currentIdentity.startTime, 0)
  }

  /// The boot id is the kernel's, without its newline: what tells a reboot from a crash.
  func testTheBootIDIsTheKernelsWithoutItsNewline() throws {
    let kernel = try String(contentsOfFile: "/proc/sys/kernel/random/boot_id", encoding: .utf8)
    XCTAssertEqual(SystemProcessFacts.bootID(), kernel.trimmingCharacters(in: .whitespacesAndNewlines))
    XCTAssertEqual(SystemProcessFacts.bootID().count, 36, "a UUID")
  }
}
