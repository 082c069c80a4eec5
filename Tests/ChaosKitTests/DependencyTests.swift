import ChaosKit
import Foundation
import TestSupport
import XCTest

/// `dependency:`: the grammar (errors at file:line:column), the real listener (up answers
/// `ok`, down refuses, the port stays the same, nothing left open) and a run whose launches
/// find it up, down and back after `down_for`.
final class DependencyTests: XCTestCase {
  let artifacts = TemporaryDirectory("dependency-runs")

  // MARK: The listener

  func testUpAnswersDownRefusesOnTheSamePortAndNothingIsLeftOpen() throws {
    let descriptorsBefore = openDescriptors()
    let threadsBefore = threadCount()
    let server = try DependencyServer(name: "db")
    XCTAssertEqual(threadCount(), threadsBefore + 1, "the listener has its thread")
    XCTAssertEqual(Self.connect(server.port), .answered("ok\n"))
    try server.set(.down, eventsPaths: [])
    XCTAssertEqual(Self.connect(server.port), .refused)
    XCTAssertNil(bindable(server.port), "the port is held while down")
    try server.set(.up, eventsPaths: [])
    XCTAssertEqual(Self.connect(server.port), .answered("ok\n"), "up again on port \(server.port)")
    XCTAssertEqual(server.accepted, 2)
    let port = server.port
    server.close()
    XCTAssertEqual(Self.connect(port), .refused, "closed at the end")
    XCTAssertEqual(openDescriptors(), descriptorsBefore, "every socket and the wake pipe are closed")
    // The thread signals its end just before it returns: give it a moment to be gone.
    let deadline = Date().addingTimeInterval(2)
    while threadCount() > threadsBefore, Date() < deadline { usleep(1_000) }
    XCTAssertEqual(threadCount(), threadsBefore, "the listener's thread ended")
  }

  func testDownForListensAgainAfterItsTimeAndSaysSo() throws {
    let folder = TemporaryDirectory("dependency-down-for")
    let events = folder.file("events.ndjson")
    let server = try DependencyServer(name: "db")
    defer { server.close() }
    let started = Date()
    try server.set(.downFor(0.4), eventsPaths: [events])
    XCTAssertEqual(Self.connect(server.port), .refused)
    var answer = Self.connect(server.port)
    while answer == .refused, Date().timeIntervalSince(started) < 5 {
      usleep(20_000)
      answer = Self.connect(server.port)
    }
    let waited = Date().timeIntervalSince(started)
    XCTAssertEqual(answer, .answered("ok\n"))
    XCTAssertGreaterThanOrEqual(waited, 0.4, "not before its time")
    let lines = try String(contentsOfFile: events, encoding: .utf8).split(separator: "\n")
    XCTAssertEqual(lines.count, 1)
    XCTAssertTrue(lines[0].contains("\"state\":\"up\"") && lines[0].contains("\"dependency\":\"db\""), "\(lines)")
  }

  // MARK: A run

  /// A shell target that connects to `CHAOS_DEPENDENCY_PORT` (bash's /dev/tcp) and reports what
  /// it found: up, down, and down for 300 ms then up, in one run on one port.
  func testLaunchesFindTheDependencyAsTheirScenarioSays() throws {
    let folder = TemporaryDirectory("dependency-target")
    let script = folder.file("target.sh")
    try """
    #!/bin/bash
    now() { cut -d' ' -f1 /proc/uptime | tr -d '.'; }
    emit() { echo "{\\"event\\":\\"$1\\",\\"pid\\":$$,\\"t\\":$(now)0000000$2}" >> "$CHAOS_EVENTS"; }
    emit launch ',"count":0,"mode":"normal"'
    [ "$DEP" = "$CHAOS_DEPENDENCY_PORT" ] || emit env_mismatch
    tries=0
    until answer=$(exec 2>/dev/null 3<>/dev/tcp/127.0.0.1/$CHAOS_DEPENDENCY_PORT && cat <&3); do
      tries=$((tries + 1))
      [ "$WAIT" = yes ] && [ $tries -lt 100 ] || { emit dependency_refused; exit 1; }
      sleep 0.05
    done
    emit dependency_answered ",\\"answer\\":\\"$answer\\",\\"refused_first\\":$([ $tries -gt 0 ] && echo true || echo false)"
    emit launching_finished
    """.write(toFile: script, atomically: true, encoding: .utf8)
    chmod(script, 0o755)
    let yaml = """
      name: a dependency up, down and back
      target: target.sh
      dependency: { name: backend }
      env: { DEP: "${CHAOS_DEPENDENCY_PORT}" }
      launches:
        - expect:
            outcome: finished
            events: [{ event: dependency, state: up, source: harness }, { event: dependency_answered, answer: ok }]
            no_events: [env_mismatch]
        - dependency: down
          expect: { outcome: exit, exit_code: 1, events: [{ event: dependency, state: down }, dependency_refused] }
        - dependency: { down_for: 300ms }
          env: { WAIT: "yes" }
          expect:
            outcome: finished
            events:
              - { event: dependency, state: down, down_for_ms: 300 }
              - { event: dependency, state: up }
              - { event: dependency_answered, answer: ok, refused_first: true }
        - dependency: down
          expect: { outcome: finished }
      """
    let path = folder.file("scenario.yaml")
    try yaml.write(toFile: path, atomically: true, encoding: .utf8)
    var options = RunOptions()
    options.artifactsDirectory = artifacts.path
    let descriptorsBefore = openDescriptors()
    let result = ScenarioRunner(options: options).run(try ScenarioLoader.load(path: path))
    XCTAssertEqual(result.status, .failed, result.messages.joined(separator: "\n"))
    XCTAssertEqual(result.processes.map(\.outcome), [.finished, .exit, .finished, .exit])
    // The last launch expected the wrong thing: the message says which launch, what was
    // expected and what happened.
    XCTAssertEqual(result.messages.count, 1, result.messages.joined(separator: "\n"))
    let message = try XCTUnwrap(result.messages.first)
    XCTAssertTrue(message.contains("launch 4 (line 20"), message)
    XCTAssertTrue(message.contains("finished") && message.contains("exit"), message)
    XCTAssertEqual(openDescriptors(), descriptorsBefore, "the run closed its listener")
  }

  // MARK: The reference app's knob

  /// `CHAOS_APP` `dependency`: a bad task, an unknown field or no port end the app with 2 and
  /// say why; against a real listener that is down it waits `give_up_ms`, then exits 1 with
  /// `dependency_failed`; up, it answers and the launch finishes.
  func testTheReferenceAppWaitsGivesUpAndSaysWhatIsWrong() throws {
    let folder = TemporaryDirectory("dependency-app")
    func launch(_ app: String, port: Int?) throws -> (Termination?, String, String) {
      var environment = [
        "CHAOS_STATE_DIR": folder.file("state"), "CHAOS_EVENTS": folder.file("events.ndjson"), "CHAOS_APP": app,
      ]
      environment["CHAOS_DEPENDENCY_PORT"] = port.map(String.init)
      unlink(folder.file("events.ndjson"))
      let pid = ChildProcess.spawn(
        ChildProcess.product("chaos-target"), environment: environment, stderr: folder.file("stderr.txt"))
      let termination = ChildProcess.wait(pid, timeout: 30)
      let events = (try? String(contentsOfFile: folder.file("events.ndjson"), encoding: .utf8)) ?? ""
      return (termination, events, (try? String(contentsOfFile: folder.file("stderr.txt"), encoding: .utf8)) ?? "")
    }
    let (badTask, _, badTaskError) = try launch(#"{"dependency": {"name": "pg", "task": "nope"}}"#, port: 1)
    XCTAssertEqual(badTask, .exited(2))
    XCTAssertTrue(badTaskError.contains("dependency.task must be one of the tasks"), badTaskError)
    let (unknown, _, unknownError) = try launch(#"{"dependency": {"name": "pg", "give_up": 1}}"#, port: 1)
    XCTAssertEqual(unknown, .exited(2))
    XCTAssertTrue(unknownError.contains("unknown field 'give_up' in dependency"), unknownError)
    let (noPort, _, noPortError) = try launch(#"{"dependency": {"name": "pg"}}"#, port: nil)
    XCTAssertEqual(noPort, .exited(2))
    XCTAssertTrue(noPortError.contains("CHAOS_DEPENDENCY_PORT"), noPortError)

    let server = try DependencyServer(name: "pg")
    defer { server.close() }
    try server.set(.down, eventsPaths: [])
    let started = Date()
    let (gaveUp, gaveUpEvents, gaveUpError) = try launch(
      #"{"dependency": {"name": "pg", "task": "database", "give_up_ms": 300}}"#, port: server.port)
    XCTAssertEqual(gaveUp, .exited(1), gaveUpError)
    XCTAssertGreaterThanOrEqual(Date().timeIntervalSince(started), 0.3, "it waited give_up_ms")
    XCTAssertTrue(gaveUpEvents.contains(#""event":"dependency_failed""#), gaveUpEvents)
    XCTAssertTrue(gaveUpError.contains("pg on 127.0.0.1:\(server.port) did not answer"), gaveUpError)
    try server.set(.up, eventsPaths: [])
    let (answered, answeredEvents, _) = try launch(
      #"{"dependency": {"name": "pg", "task": "database", "give_up_ms": 300}}"#, port: server.port)
    XCTAssertEqual(answered, .exited(0))
    XCTAssertTrue(answeredEvents.contains(#""event":"dependency_answered""#), answeredEvents)
    XCTAssertGreaterThanOrEqual(server.accepted, 1)
  }

  /// The HTML report marks the listener's changes and the launch's wait on its row.
  func testTheReportMarksTheDependencyAndTheWait() throws {
    let folder = TemporaryDirectory("dependency-report")
    let path = folder.file("scenario.yaml")
    try """
    name: report
    dependency: { name: postgres }
    app: { dependency: { name: postgres, give_up_ms: 3000 } }
    launches:
      - dependency: { down_for: 200ms }
        expect: { outcome: finished, events: [dependency_wait, dependency_answered] }
    """.write(toFile: path, atomically: true, encoding: .utf8)
    var options = RunOptions()
    options.referenceTarget = ChildProcess.product("chaos-target")
    options.artifactsDirectory = artifacts.path
    options.recordsTimeline = true
    let result = ScenarioRunner(options: options).run(try ScenarioLoader.load(path: path))
    XCTAssertTrue(result.passed, result.messages.joined(separator: "\n"))
    let html = HTMLReport.render(
      [result],
      context: HTMLReport.Context(
        seconds: 1, seed: nil, targets: ["chaos-target"], reportDirectory: artifacts.path, command: "chaos run"))
    for label in ["postgres down", "postgres up", "waiting for postgres", "postgres answered after"] {
      XCTAssertTrue(html.contains(label), "the report marks '\(label)'")
    }
  }

  // MARK: Helpers

  enum Connection: Equatable {
    case answered(String)
    case refused
    case other(Int32)
  }

  /// A blocking connect to 127.0.0.1:`port` and everything it then reads.
  static func connect(_ port: Int) -> Connection {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    guard fd >= 0 else { return .other(errno) }
    defer { close(fd) }
    var address = LoopbackAddress(port: port)
    let connected = address.withSocketAddress { Glibc.connect(fd, $0, $1.pointee) }
    if connected != 0 { return errno == ECONNREFUSED ? .refused : .other(errno) }
    var timeout = timeval(tv_sec: 2, tv_usec: 0)
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    var bytes: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 64)
    while true {
      let count = recv(fd, &buffer, buffer.count, 0)
      if count <= 0 { break }
      bytes += buffer[0..<count]
    }
    return .answered(String(decoding: bytes, as: UTF8.self))
  }

  func openDescriptors() -> Int {
    (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? -1
  }

  func threadCount() -> Int {
    (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task").count) ?? -1
  }
}

/// Whether `port` can be bound without SO_REUSEADDR, as `freePort` binds to hand one out.
private func bindable(_ port: Int) -> Int? {
  let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
  guard fd >= 0 else { return nil }
  defer { close(fd) }
  var address = LoopbackAddress(port: port)
  let bound = address.withSocketAddress { bind(fd, $0, $1.pointee) == 0 }
  return bound ? port : nil
}
