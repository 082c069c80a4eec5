import Foundation
import TestSupport
import XCTest

/// The store's write protocol observed with strace in a real process: the temp file is
/// fsynced before the rename, and the directory is fsynced after it. Without a power cut the
/// missing fsync would be invisible to any crash scenario; the system-call order is not.
final class DurabilityTests: XCTestCase {
  func testStateWriteFsyncsTheFileBeforeRenameAndTheDirectoryAfter() throws {
    let strace = try XCTUnwrap(
      ["/usr/bin/strace", "/bin/strace"].first { FileManager.default.isExecutableFile(atPath: $0) },
      "strace is installed by CI/setup")
    let directory = TemporaryDirectory()
    let trace = directory.file("trace.txt")
    let termination = ChildProcess.run(
      strace,
      arguments: ["-f", "-qq", "-e", "trace=openat,fsync,rename", "-o", trace, ChildProcess.product("chaos-target")],
      environment: [
        "CHAOS_STATE_DIR": directory.file("state"), "CHAOS_EVENTS": directory.file("events.ndjson"),
        "CHAOS_APP": "{\"crash_capture\": false}",
      ])
    XCTAssertEqual(termination, .exited(0))
    let lines = try String(contentsOfFile: trace, encoding: .utf8).split(separator: "\n").map(String.init)
    let stateDirectory = directory.file("state")
    // The first durable write: the sentinel of finishLaunching.
    let tempOpen = try XCTUnwrap(
      lines.firstIndex { $0.contains("openat(") && $0.contains("launch-state.json.tmp-") }, "temp file opened")
    let tempFD = try XCTUnwrap(
      lines[tempOpen].split(separator: "=").last.flatMap { Int($0.trimmingCharacters(in: .whitespaces)) })
    let rename = try XCTUnwrap(
      lines[tempOpen...].firstIndex { $0.contains("rename(") && $0.contains("launch-state.json\")") }, "renamed")
    XCTAssertTrue(
      lines[tempOpen..<rename].contains { $0.contains("fsync(\(tempFD))") },
      "fsync of the temp file before the rename:\n\(lines[tempOpen...rename].joined(separator: "\n"))")
    let directoryOpen = try XCTUnwrap(
      lines[rename...].firstIndex {
        $0.contains("openat(AT_FDCWD, \"\(stateDirectory)\"") && $0.contains("O_DIRECTORY")
      }, "directory opened after the rename")
    let directoryFD = try XCTUnwrap(
      lines[directoryOpen].split(separator: "=").last.flatMap { Int($0.trimmingCharacters(in: .whitespaces)) })
    XCTAssertTrue(
      lines[directoryOpen...].prefix(4).contains { $0.contains("fsync(\(directoryFD))") }, "fsync of the directory")
  }
}
