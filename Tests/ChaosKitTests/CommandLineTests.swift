import Foundation
import TestSupport
import XCTest

/// The `chaos` CLI's documented exit statuses for usage errors, from the real binary.
final class CommandLineTests: XCTestCase {
  private func status(_ arguments: [String]) -> Termination? {
    ChildProcess.run(ChildProcess.product("chaos"), arguments: arguments, environment: [:])
  }

  func testUsageErrorsExitTwoAsDocumented() {
    for arguments in [
      ["run", "--bogus"], ["run", "--repeat", "0"], ["run", "--jobs", "-2"], ["explore", "--seed", "-3"],
      ["explore", "--sequences", "-1"], ["explore", "--time", "soon"], ["bench", "--iterations", "0"],
      ["no-such-command"],
    ] {
      XCTAssertEqual(status(arguments), .exited(2), arguments.joined(separator: " "))
    }
  }

  func testHelpIsNotAnError() {
    XCTAssertEqual(status(["--help"]), .exited(0))
    XCTAssertEqual(status(["explore", "--help"]), .exited(0))
  }
}
