import ChaosKit
import Foundation
import TestSupport
import XCTest

/// `requests:` steps: an HTTP request to the target or a command once an event came, with the
/// result asserted. The target is `Tests/Fixtures/http-target/server.py`, a protocol-speaking
/// Python HTTP server on `CHAOS_PORT`.
final class RequestStepTests: XCTestCase {
  static let server = Repository.root + "/Tests/Fixtures/http-target/server.py"

  // MARK: Running against a real server

  /// Runs `yaml` (with `target:` set to the fixture server) from a fresh folder, then checks
  /// that nothing the run started is still alive.
  /// `@FOLDER@` in `yaml` is the scenario's folder.
  func run(_ yaml: String, file: StaticString = #filePath, line: UInt = #line) throws -> ScenarioResult {
    let folder = TemporaryDirectory("requests")
    try
      ("target: \(Self.server)\n"
      + yaml.replacingOccurrences(of: "@FOLDER@", with: (folder.path as NSString).standardizingPath))
      .write(toFile: folder.file("s.yaml"), atomically: true, encoding: .utf8)
    let result = try XCTUnwrap(ScenarioCase.all(in: folder.path).first, file: file, line: line).run(
      target: nil, artifacts: folder.file("artifacts"))
    XCTAssertEqual(Self.processes(mentioning: folder.path), [], "nothing left running", file: file, line: line)
    return result
  }

  /// Live (non-zombie) processes whose command line or environment mentions `text`.
  static func processes(mentioning text: String) -> [String] {
    let names = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
    return names.filter { Int32($0) != nil && Int32($0) != getpid() }.compactMap { pid in
      guard let status = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
        !status.contains(") Z ")
      else { return nil }
      for file in ["cmdline", "environ"] {
        if let data = FileManager.default.contents(atPath: "/proc/\(pid)/\(file)"),
          String(decoding: data, as: UTF8.self).contains(text)
        {
          return pid + ": " + String(decoding: data, as: UTF8.self).replacingOccurrences(of: "\0", with: " ")
        }
      }
      return nil
    }
  }

  func messages(_ result: ScenarioResult) -> String { result.messages.joined(separator: "\n") }

  func testPassingRequestsAndACommandThenSIGTERMAfterThem() throws {
    // The server binds 0.5 s after launching_finished: without `retry_for` the first request
    // would be refused, and without send_signal waiting for the requests SIGTERM would end it
    // before it ever listened.
    let result = try run(
      """
      name: serves
      launches:
        - env: { BIND_DELAY: "0.5", ECHO_PORT: "${CHAOS_PORT}" }
          requests:
            - http: { path: /health, body_equals: "ok\\n", retry_for: 5s }
            - http: { method: POST, path: /kv/a, headers: { X-Token: secret }, body: v1, status: 201,
                      body_equals: /kv/a secret v1 }
            - http: { path: /chunked, body_contains: chunked world }
            - http: { method: HEAD, path: /health }
            - command: [sh, -c, "echo port=$CHAOS_PORT echo=$ECHO_PORT arg=${CHAOS_PORT} pid=$CHAOS_PID; pwd"]
              output_contains: "port=${CHAOS_PORT} echo=${CHAOS_PORT} arg=${CHAOS_PORT} pid=${CHAOS_PID}\\n@FOLDER@\\n"
          send_signal: { signal: SIGTERM, after_event: launching_finished }
          expect:
            outcome: finished
            events:
              - launching_finished
              - { event: request, index: 1, ok: true, status: 200, method: GET, path: /health }
              - { event: request, index: 5, ok: true, end: "exit(0)" }
              - stopping
      """)
    XCTAssertTrue(result.passed, messages(result))
    let process = try XCTUnwrap(result.processes.first)
    let requests = try XCTUnwrap(process.requests)
    XCTAssertEqual(requests.map(\.ok), [true, true, true, true, true], "\(requests)")
    XCTAssertEqual(requests.map(\.status), [200, 201, 200, 200, nil])
    XCTAssertEqual(requests[0].label, "GET /health")
    XCTAssertGreaterThan(requests[0].attempts ?? 0, 1, "the first attempts were refused")
  }

  func testAWrongStatusNamesTheLaunchTheRequestAndTheBody() throws {
    let result = try run(
      """
      name: fails
      launches:
        - requests:
            - http: { path: /fail, retry_for: 3s }
          send_signal: { signal: SIGTERM, after_event: launching_finished }
          expect: { outcome: finished }
      """)
    XCTAssertEqual(result.status, .failed)
    XCTAssertEqual(result.messages.count, 1, messages(result))
    let message = messages(result)
    XCTAssertTrue(message.hasPrefix("\(result.path): launch 1 (line 4, pid "), message)
    XCTAssertTrue(
      message.contains(
        "): request 1 GET /fail (line 5): expected status 200, got 503, body \"unavailable\" after 3."), message)
    XCTAssertEqual(result.processes.first?.requests?.first?.status, 503)
    XCTAssertGreaterThan(result.processes.first?.requests?.first?.attempts ?? 0, 5, "retried for 3 s")
  }

  func testABodyMismatchShowsTheBody() throws {
    let result = try run(
      """
      name: body
      launches:
        - requests:
            - http: { path: /health, body_contains: healthy, retry_for: 5s }
            - http: { path: /missing, status: 404, body_equals: nothing }
          send_signal: { signal: SIGTERM, after_event: launching_finished }
          expect: { outcome: finished, events: [{ event: request, index: 1, ok: false }] }
      """)
    XCTAssertEqual(result.status, .failed)
    let message = messages(result)
    XCTAssertTrue(
      message.contains(
        "request 1 GET /health (line 5): expected body to contain \"healthy\", got \"ok\\n\" (status 200)"), message)
    XCTAssertTrue(
      message.contains(
        "request 2 GET /missing (line 6): expected body \"nothing\", got \"no route /missing\" (status 404)"),
      message)
  }

  func testConnectionRefusedAfterRetryFor() throws {
    let started = Date()
    let result = try run(
      """
      name: refused
      launches:
        - env: { NO_SERVER: "1" }
          requests:
            - http: { path: /health, retry_for: 1s }
          send_signal: { signal: SIGTERM, after_event: launching_finished }
          expect: { outcome: finished }
      """)
    XCTAssertEqual(result.status, .failed)
    let message = messages(result)
    XCTAssertTrue(message.contains("request 1 GET /health (line 6): connection refused after 1."), message)
    XCTAssertTrue(message.contains(" attempts)"), message)
    XCTAssertLessThan(Date().timeIntervalSince(started), 8, "SIGTERM followed the failed request")
  }

  func testCommandsPassAndFail() throws {
    let result = try run(
      """
      name: commands
      launches:
        - env: { GREETING: hello }
          requests:
            - command: [sh, -c, "echo $GREETING; test -d \\"$CHAOS_STATE_DIR\\""]
              output_contains: hello
            - command: [sh, -c, "echo nope >&2; exit 3"]
            - command: [sh, -c, "echo 42"]
              output_contains: "43"
            - command: [sh, -c, "exit 4"]
              exit_code: 4
            - command: [sleep, "30"]
              timeout: 300ms
            - command: [no-such-command-anywhere]
          send_signal: { signal: SIGTERM, after_event: launching_finished }
          expect: { outcome: finished }
      """)
    XCTAssertEqual(result.status, .failed)
    let requests = try XCTUnwrap(result.processes.first?.requests)
    XCTAssertEqual(requests.map(\.ok), [true, false, false, true, false, false], "\(requests)")
    let message = messages(result)
    XCTAssertTrue(
      message.contains(
        "request 2 sh -c 'echo nope >&2; exit 3' (line 8): expected exit(0), got exit(3), output \"nope\\n\""),
      message)
    XCTAssertTrue(
      message.contains("request 3 sh -c 'echo 42' (line 9): expected output to contain \"43\", got \"42\\n\""), message)
    XCTAssertTrue(
      message.contains("request 5 sleep 30 (line 13): timed out after 0.3 s (its process group was killed)"), message)
    XCTAssertTrue(
      message.contains("request 6 no-such-command-anywhere (line 15): 'no-such-command-anywhere' not found in PATH"),
      message)
    XCTAssertEqual(result.messages.count, 4, message)
  }

  func testARequestWhoseEventNeverComesFailsWithinTheLaunchTimeout() throws {
    let started = Date()
    let result = try run(
      """
      name: never
      timeout: 1500ms
      launches:
        - requests:
            - after_event: ready
              http: { path: /health }
          send_signal: { signal: SIGTERM, after_event: launching_finished }
          expect: { outcome: timeout }
      """)
    XCTAssertEqual(result.status, .failed)
    XCTAssertTrue(
      messages(result).contains(
        "request 1 GET /health (line 6): not run: after_event 'ready' never came (the target ended: timeout"),
      messages(result))
    XCTAssertLessThan(Date().timeIntervalSince(started), 6)
  }

  func testARequestAfterTheTargetDiedIsNotRun() throws {
    let result = try run(
      """
      name: died
      launches:
        - env: { EXIT_AFTER: "0.2" }
          requests:
            - command: [sleep, "1"]
            - http: { path: /health }
          expect: { outcome: finished }
      """)
    XCTAssertEqual(result.status, .failed)
    XCTAssertEqual(result.processes.first?.requests?.map(\.ok), [true, false])
    XCTAssertTrue(
      messages(result).contains("request 2 GET /health (line 7): not run: the target had already ended (exit(0))"),
      messages(result))
  }

  func testParallelProcessesGetTheirOwnPorts() throws {
    let result = try run(
      """
      name: parallel
      launches:
        - parallel: 3
          requests:
            - http: { path: /health, retry_for: 5s }
          send_signal: { signal: SIGTERM, after_event: launching_finished }
          expect: { outcome: finished, events: [{ event: request, ok: true }] }
      """)
    XCTAssertTrue(result.passed, messages(result))
    XCTAssertEqual(result.processes.count, 3)
  }

  func testTheFixtureScenarioPasses() throws {
    let cases = ScenarioCase.all(in: "Tests/Fixtures/http-target-scenarios")
    XCTAssertFalse(cases.isEmpty)
    for scenario in cases {
      let folder = TemporaryDirectory("requests-fixture")
      let result = scenario.run(target: nil, artifacts: folder.file("artifacts"))
      XCTAssertTrue(result.passed, result.report)
    }
  }
}
