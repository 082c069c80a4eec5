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

  /// Each command's overview and discussion at 80 columns: prose is one paragraph a line in the
  /// source (ArgumentParser wraps it), so no line is cut short mid-sentence ("each in its own" /
  /// "process group"), none ends in a stray backslash, and none is wider than 80 columns.
  func testHelpReadsWellAtEightyColumns() throws {
    for command in ["run", "list", "validate", "explore", "symbolize", "bench"] {
      let output = NSTemporaryDirectory() + "chaos-help-\(getpid())-\(command).txt"
      defer { unlink(output) }
      let pid = ChildProcess.spawn(
        ChildProcess.product("chaos"), arguments: [command, "--help"], environment: ["COLUMNS": "80"], stdout: output)
      XCTAssertEqual(ChildProcess.wait(pid), .exited(0), command)
      let help = try String(contentsOfFile: output, encoding: .utf8)
      let lines = help.components(separatedBy: "\n").prefix { !$0.hasPrefix("USAGE:") }
      for (index, line) in lines.enumerated() {
        XCTAssertLessThanOrEqual(line.count, 80, "\(command): \(line)")
        let isProse = !line.isEmpty && !line.hasPrefix(" ")
        if isProse { XCTAssertFalse(line.hasSuffix("\\"), "\(command): stray backslash: \(line)") }
        let next = index + 1 < lines.count ? lines[lines.startIndex + index + 1] : ""
        let continues = !next.isEmpty && !next.hasPrefix(" ")
        if isProse && continues && !line.hasSuffix(":") {
          XCTAssertGreaterThan(line.count, 60, "\(command): a line cut short mid-sentence: \(line)")
        }
      }
    }
  }
}
