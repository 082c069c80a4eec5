import ChaosKit
import Foundation
import TestSupport
import XCTest

/// ChaosProbe's contract, seen from outside in real processes of the reference app (built on
/// it) and the bench helper: inert without `CHAOS_EVENTS`, the failpoint listing, and one
/// clear line plus exit 2 for a bad `CHAOS_FAILPOINTS`.
final class ChaosProbeTests: XCTestCase {
  func run(_ environment: [String: String], unsetting: [String] = [], in directory: TemporaryDirectory) -> (
    Termination?, stdout: String, stderr: String
  ) {
    let pid = ChildProcess.spawn(
      ChildProcess.product("chaos-target"), environment: environment, unsetting: unsetting,
      stdout: directory.file("stdout.txt"), stderr: directory.file("stderr.txt"))
    let termination = ChildProcess.wait(pid, timeout: 30)
    let read = { (name: String) in (try? String(contentsOfFile: directory.file(name), encoding: .utf8)) ?? "" }
    return (termination, read("stdout.txt"), read("stderr.txt"))
  }

  func testWithoutChaosEventsTheProbeDoesNothing() throws {
    let directory = TemporaryDirectory()
    // Failpoints are ignored (not configured), no events file appears, the launch is clean.
    let (end, _, stderr) = run(
      ["CHAOS_FAILPOINTS": "task.network=segv", "CHAOS_STATE_DIR": directory.file("state")],
      unsetting: ["CHAOS_EVENTS"], in: directory)
    XCTAssertEqual(end, .exited(0), stderr)
    let files = try FileManager.default.contentsOfDirectory(atPath: directory.path)
    XCTAssertFalse(files.contains { $0.hasSuffix(".ndjson") }, "no events file: \(files)")

    // The bench helper checks in-process that no signal handler was installed.
    let helper = ChildProcess.product("chaos-bench-helper")
    let pid = ChildProcess.spawn(
      helper, arguments: ["--bench-probe"], environment: [:], stdout: directory.file("probe.json"))
    XCTAssertEqual(ChildProcess.wait(pid), .exited(0))
    let json = try JSONDecoder().decode(
      [String: JSONValue].self, from: Data(contentsOf: URL(fileURLWithPath: directory.file("probe.json"))))
    XCTAssertEqual(json["active"], .bool(false))
    XCTAssertEqual(json["signal_handler_installed"], .bool(false))
  }

  func testListsDeclaredFailpointsAndExits() throws {
    let directory = TemporaryDirectory()
    let (end, stdout, _) = run(
      ["CHAOS_LIST_FAILPOINTS": "1", "CHAOS_APP": "{\"extra_tasks\": [{\"name\": \"search\"}]}"],
      unsetting: ["CHAOS_EVENTS"], in: directory)
    XCTAssertEqual(end, .exited(0))
    let object = try JSONDecoder().decode([String: JSONValue].self, from: Data(stdout.utf8))
    XCTAssertEqual(object["protocol"], .number(2))
    XCTAssertEqual(object["accepts_app"], .bool(true), "the reference app reads CHAOS_APP")
    let names = Set((object["failpoints"]?.array ?? []).compactMap(\.string))
    for expected in ["task.network", "task.search", "launch.begin", "protect.finish", "store.fsync", "life.*"] {
      XCTAssertTrue(names.contains(expected), "\(expected) missing from \(names.sorted())")
    }
    XCTAssertFalse(FileManager.default.fileExists(atPath: directory.file("state")), "listing ran no launch")
  }

  func testBadFailpointsGetOneLineAndExit2() throws {
    for (spec, expected) in [
      ("task.netwrok=segv", "unknown failpoint 'task.netwrok' (declared: "),
      ("task.network=segvv", "unknown action 'segvv'"),
    ] {
      let directory = TemporaryDirectory()
      let (end, _, stderr) = run(
        [
          "CHAOS_FAILPOINTS": spec, "CHAOS_EVENTS": directory.file("events.ndjson"),
          "CHAOS_STATE_DIR": directory.file("state"),
        ], in: directory)
      XCTAssertEqual(end, .exited(2), spec)
      let lines = stderr.split(separator: "\n")
      XCTAssertEqual(lines.count, 1, "one line: \(stderr)")
      XCTAssertTrue(stderr.contains("CHAOS_FAILPOINTS '\(spec)'"), stderr)
      XCTAssertTrue(stderr.contains(expected), stderr)
      if spec.contains("netwrok") { XCTAssertTrue(stderr.contains("task.network"), "names the known ones: \(stderr)") }
      XCTAssertFalse(FileManager.default.fileExists(atPath: directory.file("state/launch-state.json")), "no launch ran")
    }
  }
}
