import Foundation
import XCTest

@testable import ChaosKit

/// `services:`: the grammar's errors, the readiness checks, and the process tree a stop must
/// leave empty (real processes: `sh`, `sleep`, a descendant that left the group with `setsid`).
final class ServiceTests: XCTestCase {
  private func assertError(_ yaml: String, line: Int, _ message: String, at: UInt = #line) {
    XCTAssertThrowsError(try ScenarioLoader.parse(yaml, path: "s.yaml"), line: at) { error in
      guard let error = error as? ScenarioError else { return XCTFail("\(error)", line: at) }
      XCTAssertEqual(error.line, line, "\(error)", line: at)
      XCTAssertTrue(error.message.contains(message), "\(error.message) lacks \(message)", line: at)
    }
  }

  private let top =
    "name: x\nservices:\n  - { name: db, command: [sleep, '9'], ready: 'tcp://127.0.0.1:${CHAOS_SERVICE_PORT}' }\n"

  func testTheGrammarLoadsAndLocatesItsMistakes() throws {
    let scenario = try ScenarioLoader.parse(
      top + "launches:\n  - services: { db: down }\n    expect: {}\n  - expect: {}\n", path: "s.yaml")
    XCTAssertEqual(scenario.services.map(\.name), ["db"])
    XCTAssertEqual(scenario.services[0].variablePrefix, "CHAOS_SERVICE_DB")
    XCTAssertEqual(scenario.launches.map(\.services), [["db": .down], [:]])
    assertError(
      "name: x\nservices:\n  - { command: [a] }\nlaunches:\n  - expect: {}\n", line: 3, "needs 'name' and 'command'")
    assertError(
      "name: x\nservices:\n  - { name: db, command: [] }\nlaunches:\n  - expect: {}\n", line: 3, "an empty list")
    assertError(
      "name: x\nservices:\n  - { name: Db, command: [a] }\nlaunches:\n  - expect: {}\n", line: 3, "lowercase letters")
    assertError(
      "name: x\nservices:\n  - { name: db, command: [a], ready: 'http://example.com:80/' }\nlaunches:\n  - expect: {}\n",
      line: 3, "the host must be 127.0.0.1 or localhost")
    assertError(
      "name: x\nservices:\n  - { name: db, command: [a], restart: yes }\nlaunches:\n  - expect: {}\n", line: 3,
      "unknown key 'restart' in service")
    assertError(top + "launches:\n  - services: { web: down }\n    expect: {}\n", line: 5, "unknown key 'web'")
    assertError(top + "launches:\n  - services: { db: paused }\n    expect: {}\n", line: 5, "unknown service state")
    assertError("name: x\nlaunches:\n  - services: { db: down }\n    expect: {}\n", line: 3, "needs the scenario's")
    assertError(
      "name: x\nservices:\n  - { name: db, command: [a] }\n  - { name: db, command: [b] }\nlaunches:\n  - expect: {}\n",
      line: 4, "a second service named 'db'")
  }

  func testReadinessURLs() {
    XCTAssertEqual(try ReadinessCheck.parse("http://127.0.0.1:9090/-/ready").get(), .http(port: 9090, path: "/-/ready"))
    XCTAssertEqual(try ReadinessCheck.parse("http://localhost:80").get(), .http(port: 80, path: "/"))
    XCTAssertEqual(try ReadinessCheck.parse("tcp://127.0.0.1:5432").get(), .tcp(port: 5432))
    for bad in [
      "ftp://127.0.0.1:1", "tcp://127.0.0.1", "tcp://127.0.0.1:0", "tcp://127.0.0.1:5/x", "http://10.0.0.1:80/",
    ] {
      XCTAssertThrowsError(try ReadinessCheck.parse(bad).get(), bad)
    }
  }

  /// A stop kills what left the group too, and says so; the leader's end is reported.
  func testAStopFindsAndKillsADescendantThatLeftTheGroup() throws {
    let directory = NSTemporaryDirectory() + "service-\(getpid())"
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let launcher = ProcessLauncher(
      executable: "/bin/sh", arguments: ["-c", "setsid sleep 300 & exec sleep 300"],
      environment: ["PATH": "/usr/bin:/bin"],
      stdoutPath: directory + "/out", stderrPath: directory + "/err")
    let service = ServiceProcess(name: "sleepers", launcher: launcher, readiness: nil, stopGrace: 2)
    let pid = try service.start(readyWithin: 5)
    var tree: [ProcessStamp] = []
    for _ in 0..<100 where tree.count < 2 {
      usleep(20_000)
      tree = ProcessTree.descendants(of: pid)
    }
    XCTAssertEqual(tree.count, 2, "the leader and the setsid sleep: \(tree)")
    let stopped = try XCTUnwrap(service.stop())
    XCTAssertEqual(stopped.end, .signaled(SIGTERM))
    XCTAssertEqual(stopped.leftovers.map(\.pid), tree.filter { $0.pid != pid }.map(\.pid), "the setsid sleep was left")
    usleep(100_000)
    XCTAssertFalse(tree.contains(where: \.isAlive), "nothing of the tree is left")
    XCTAssertNil(service.pid)
    XCTAssertNil(service.stop(), "stopping twice does nothing")
  }

  /// A service that ends before it is ready fails with its stderr; one never ready times out.
  func testAServiceThatEndsOrNeverAnswersFailsClearly() throws {
    let directory = NSTemporaryDirectory() + "service-fail-\(getpid())"
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let ends = ServiceProcess(
      name: "ends",
      launcher: ProcessLauncher(
        executable: "/bin/sh", arguments: ["-c", "echo no config >&2; exit 3"], environment: [:],
        stdoutPath: directory + "/out", stderrPath: directory + "/err"),
      readiness: .tcp(port: 1))
    XCTAssertThrowsError(try ends.start(readyWithin: 5)) { error in
      XCTAssertTrue("\(error)".contains("ended before it was ready: exit(3)"), "\(error)")
      XCTAssertTrue("\(error)".contains("no config"), "\(error)")
    }
    let silent = ServiceProcess(
      name: "silent",
      launcher: ProcessLauncher(
        executable: "/bin/sleep", arguments: ["300"], environment: [:], stdoutPath: directory + "/out",
        stderrPath: directory + "/err"),
      readiness: .tcp(port: 1))
    XCTAssertThrowsError(try silent.start(readyWithin: 0.3)) { error in
      XCTAssertTrue(
        "\(error)".contains("not ready within 0.3 s (tcp://127.0.0.1:1: connect: Connection refused)"), "\(error)")
    }
    XCTAssertNil(silent.pid, "stopped after the failed check")
  }
}
