import ChaosKit
import Foundation
import TestSupport
import XCTest

/// `requests:` as a scenario writes them: defaults, every bad request at its line and column,
/// and the JSON Schema's keys.
final class RequestGrammarTests: XCTestCase {
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
}
