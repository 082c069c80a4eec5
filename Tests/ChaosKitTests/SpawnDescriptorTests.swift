import CProcessSpawn
import Foundation
import TestSupport
import XCTest

@testable import ChaosKit

/// A spawned process inherits no descriptor but 0, 1 and 2, as Python's subprocess does with
/// close_fds=True: the harness's threads open files without O_CLOEXEC (Foundation's writes), and
/// a target spawned meanwhile once held another scenario's state file open (issue 60).
final class SpawnDescriptorTests: XCTestCase {
  /// The descriptors of a child spawned while the harness holds `open` ones, by their targets
  /// (`readlink /proc/<sh>/fd/N`), as the child itself lists them.
  private func descriptorsOfAChild(container: Bool = false) throws -> [String] {
    let folder = TemporaryDirectory("spawn-fds")
    let marker = folder.file("held-open.txt")
    XCTAssertTrue(FileManager.default.createFile(atPath: marker, contents: Data("x".utf8)))
    // Without O_CLOEXEC, as Foundation's FileHandle and Data.write open theirs; one high, one low.
    let low = open(marker, O_RDONLY)
    let high = fcntl(low, F_DUPFD, 900)
    XCTAssertGreaterThanOrEqual(low, 3)
    XCTAssertGreaterThanOrEqual(high, 900)
    defer {
      close(low)
      close(high)
    }
    var launcher = ProcessLauncher(
      executable: "/bin/sh",
      arguments: ["-c", "for f in /proc/$$/fd/*; do echo \"${f##*/} $(readlink \"$f\")\"; done"],
      environment: ["PATH": "/usr/bin:/bin"], stdoutPath: folder.file("out.txt"), stderrPath: folder.file("err.txt"))
    launcher.container = container
    let pid = try launcher.spawn()
    XCTAssertEqual(ProcessLauncher.wait(pid, timeout: 10), .exited(0))
    let listing = try String(contentsOfFile: folder.file("out.txt"), encoding: .utf8)
    XCTAssertFalse(listing.contains(marker), "the child holds the harness's file open:\n\(listing)")
    return listing.split(separator: "\n").map(String.init)
  }

  /// Lines of descriptors the shell did not open itself: its glob's directory (/proc/…/fd) and
  /// the pipe of each `$(readlink)` reuse the lowest free number while it lists them.
  private func inherited(_ lines: [String]) -> [String] {
    lines.filter { line in
      let number = line.split(separator: " ").first.map(String.init) ?? ""
      return !["0", "1", "2"].contains(number) && !line.contains("/proc/") && !line.contains("pipe:")
    }
  }

  func testAChildInheritsOnlyItsStandardDescriptors() throws {
    let lines = try descriptorsOfAChild()
    let numbers = Set(lines.compactMap { $0.split(separator: " ").first.map(String.init) })
    XCTAssertTrue(numbers.isSuperset(of: ["0", "1", "2"]), lines.joined(separator: "\n"))
    XCTAssertEqual(inherited(lines), [], "descriptors inherited from the harness")
  }

  /// The same for a child made PID 1 of its own namespaces (`container: true`), where the
  /// privilege allows it.
  func testAContainerChildInheritsOnlyItsStandardDescriptors() throws {
    try XCTSkipIf(ProcessLauncher.containerProblem != nil, "no PID and mount namespaces here")
    XCTAssertEqual(inherited(try descriptorsOfAChild(container: true)), [], "descriptors inherited from the harness")
  }
}
