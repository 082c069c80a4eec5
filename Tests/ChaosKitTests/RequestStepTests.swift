import ChaosKit
import Foundation
import TestSupport
import XCTest

/// `requests:` steps: an HTTP request to the target or a command once an event came, with the
/// result asserted. The target is `Tests/Fixtures/http-target/server.py`, a protocol-speaking
/// Python HTTP server on `CHAOS_PORT`.
final class RequestStepTests: XCTestCase {
  static let server = Repository.root + "/Tests/Fixtures/http-target/server.py"

  // MARK: Loading

  func assertError(
    _ yaml: String, line: Int, column: Int, _ message: String, file: StaticString = #filePath, at: UInt = #line
  ) {
    XCTAssertThrowsError(try ScenarioLoader.parse(yaml, path: "s.yaml"), file: file, line: at) { error in
      guard let error = error as? ScenarioError else { return XCTFail("\(error)", file: file, line: at) }
      XCTAssertEqual([error.line, error.column], [line, column], "\(error)", file: file, line: at)
      XCTAssertTrue(error.message.contains(message), "\(error.message) lacks \(message)", file: file, line: at)
    }
  }

  /// A scenario whose only launch has `requests:` with `entry` (indented under `- `).
  func scenario(_ entry: String) -> String {
    "name: x\nlaunches:\n  - expect: {}\n    requests:\n      - " + entry + "\n"
  }

  func testRequestsLoadWithDefaults() throws {
    let loaded = try ScenarioLoader.parse(
      scenario(
        "http: { path: /health }\n      - after_event: ready\n        http: { method: POST, path: /kv/a, body: v, "
          + "headers: { X-A: b }, port: 8080, status: 201, body_contains: ok, body_equals: x, timeout: 1s, "
          + "retry_for: 3s }\n      - command: [sh, -c, \"exit 0\"]\n      - command: [true]\n"
          + "        exit_code: 3\n        output_contains: hi\n        timeout: 250ms\n"
          + "      - http: { path: /p, port: \"${CHAOS_PORT}\" }"),
      path: "s.yaml")
    let requests = loaded.launches[0].requests
    XCTAssertEqual(requests.count, 5)
    XCTAssertEqual(requests[0].afterEvent, "launching_finished")
    XCTAssertEqual(requests[0].line, 5)
    XCTAssertEqual(requests[0].label, "GET /health")
    guard case .http(let health) = requests[0].action else { return XCTFail("\(requests[0])") }
    XCTAssertEqual(
      [health.status, health.port ?? -1], [200, -1], "default status 200, port: the launch's CHAOS_PORT")
    XCTAssertEqual([health.timeoutSeconds, health.retryForSeconds], [2, 0])
    XCTAssertEqual(requests[1].afterEvent, "ready")
    XCTAssertEqual(
      requests[1].action,
      .http(
        HTTPStep(
          method: "POST", path: "/kv/a", body: "v", headers: ["X-A": "b"], port: 8080, status: 201,
          bodyContains: "ok", bodyEquals: "x", timeoutSeconds: 1, retryForSeconds: 3)))
    XCTAssertEqual(
      requests[2].action, .command(CommandStep(arguments: ["sh", "-c", "exit 0"], exitCode: 0, timeoutSeconds: 5)))
    XCTAssertEqual(requests[2].label, "sh -c 'exit 0'")
    XCTAssertEqual(
      requests[3].action,
      .command(CommandStep(arguments: ["true"], exitCode: 3, outputContains: "hi", timeoutSeconds: 0.25)))
    guard case .http(let explicit) = requests[4].action else { return XCTFail("\(requests[4])") }
    XCTAssertNil(explicit.port, "${CHAOS_PORT} is the default written out")
    XCTAssertTrue(try ScenarioLoader.parse(valid, path: "s.yaml").launches[0].requests.isEmpty)
  }

  let valid = "name: x\nlaunches:\n  - expect: {}\n"

  func testEachKindOfBadRequestIsLocated() {
    assertError(
      "name: x\nlaunches:\n  - expect: {}\n    requests: { http: {} }\n", line: 4, column: 15,
      "'requests' must be a list")
    assertError(
      scenario("http: { path: /a }\n        command: [ls]"), line: 5, column: 9,
      "exactly one of 'http' and 'command', not both")
    assertError(scenario("after_event: ready"), line: 5, column: 9, "needs 'http'")
    assertError(scenario("htp: { path: /a }"), line: 5, column: 9, "unknown key 'htp' in request")
    assertError(scenario("http: { path: /a, stauts: 200 }"), line: 5, column: 27, "unknown key 'stauts' in http")
    assertError(scenario("http: { method: FETCH, path: /a }"), line: 5, column: 25, "unknown method 'FETCH'")
    assertError(scenario("http: { method: get, path: /a }"), line: 5, column: 25, "unknown method 'get'")
    assertError(scenario("http: { status: 200 }"), line: 5, column: 15, "http needs 'path'")
    assertError(scenario("http: { path: health }"), line: 5, column: 23, "must start with '/'")
    assertError(scenario("http: { path: /a, status: 99 }"), line: 5, column: 35, "at least 100")
    assertError(scenario("http: { path: /a, status: 600 }"), line: 5, column: 35, "100 to 599")
    assertError(scenario("http: { path: /a, status: ok }"), line: 5, column: 35, "'status' must be a whole number")
    assertError(scenario("http: { path: /a, port: 70000 }"), line: 5, column: 33, "at most 65535")
    assertError(
      scenario("http: { path: /a, retry_for: soon }"), line: 5, column: 38, "bad duration 'soon' for 'retry_for'")
    assertError(scenario("http: { path: /a, timeout: 0s }"), line: 5, column: 36, "bad duration '0s'")
    assertError(scenario("http: { path: /a, headers: [a] }"), line: 5, column: 36, "'headers' must be a mapping")
    assertError(scenario("http: { path: /a, headers: { \"a b\": c } }"), line: 5, column: 36, "bad header 'a b'")
    assertError(scenario("http: { path: /a }\n        exit_code: 0"), line: 6, column: 20, "goes with 'command'")
    assertError(scenario("command: \"ls -l\""), line: 5, column: 18, "'command' must be a list")
    assertError(scenario("command: []"), line: 5, column: 18, "non-empty argv")
    assertError(scenario("command: [ls, [a]]"), line: 5, column: 23, "'command argument' must be a string")
    assertError(scenario("command: [ls]\n        exit_code: -1"), line: 6, column: 20, "at least 0")
    assertError(scenario("command: [ls]\n        timeout: soon"), line: 6, column: 18, "bad duration 'soon'")
  }

  func testTheSchemaDescribesRequests() throws {
    let path = Repository.root + "/Scenarios/scenario.schema.json"
    let schema = try XCTUnwrap(
      try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any])
    let definitions = try XCTUnwrap(schema["$defs"] as? [String: Any])
    func properties(_ name: String) -> [String: Any] {
      (definitions[name] as? [String: Any])?["properties"] as? [String: Any] ?? [:]
    }
    XCTAssertEqual(properties("request").keys.sorted(), ScenarioLoader.requestKeys.sorted())
    XCTAssertEqual(properties("http").keys.sorted(), ScenarioLoader.httpKeys.sorted())
    XCTAssertEqual(
      (properties("http")["method"] as? [String: Any])?["enum"] as? [String], ScenarioLoader.httpMethods)
    XCTAssertNotNil(properties("launch")["requests"])
  }

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
