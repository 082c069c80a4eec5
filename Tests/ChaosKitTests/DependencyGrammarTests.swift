import ChaosKit
import Foundation
import TestSupport
import XCTest

/// `dependency:` as a scenario writes it: what loads, and every malformed form at its file,
/// line and column (through the real `chaos validate` too).
final class DependencyGrammarTests: XCTestCase {
  // MARK: The grammar

  func testTheGrammarLoads() throws {
    let scenario = try ScenarioLoader.parse(
      """
      name: ok
      dependency: { name: postgres }
      launches:
        - expect: {}
        - dependency: down
          expect: {}
        - dependency: { down_for: 1.5s }
          expect: {}
        - dependency: up
          expect: {}
      """, path: "s.yaml")
    XCTAssertEqual(scenario.dependency, DependencySpec(name: "postgres", line: 2))
    XCTAssertEqual(scenario.launches.map(\.dependency), [.up, .down, .downFor(1.5), .up])
    XCTAssertNil(try ScenarioLoader.parse("name: x\nlaunches:\n  - expect: {}\n", path: "s.yaml").dependency)
  }

  func testAMalformedDependencyIsLocated() {
    func assertError(_ yaml: String, line: Int, column: Int, _ message: String, at: UInt = #line) {
      XCTAssertThrowsError(try ScenarioLoader.parse(yaml, path: "s.yaml"), line: at) { error in
        guard let error = error as? ScenarioError else { return XCTFail("\(error)", line: at) }
        XCTAssertEqual(error.path, "s.yaml", line: at)
        XCTAssertEqual([error.line, error.column], [line, column], "\(error)", line: at)
        XCTAssertTrue(error.message.contains(message), "\(error.message) lacks \(message)", line: at)
      }
    }
    let top = "name: x\ndependency: { name: db }\nlaunches:\n"
    assertError(
      top + "  - dependency: sideways\n    expect: {}\n", line: 4, column: 17, "unknown dependency state 'sideways'")
    assertError(
      top + "  - dependency: { down_for: soon }\n    expect: {}\n", line: 4, column: 29, "bad duration 'soon'")
    assertError(top + "  - dependency: { down_for: 0s }\n    expect: {}\n", line: 4, column: 29, "bad duration '0s'")
    assertError(top + "  - dependency: { up_for: 1s }\n    expect: {}\n", line: 4, column: 19, "unknown key 'up_for'")
    assertError(top + "  - dependency: {}\n    expect: {}\n", line: 4, column: 17, "up, down or { down_for: 2s }")
    assertError(
      "name: x\nlaunches:\n  - dependency: down\n    expect: {}\n", line: 3, column: 17,
      "needs the scenario's 'dependency: { name: … }'")
    assertError(
      "name: x\ndependency: {}\nlaunches:\n  - expect: {}\n", line: 2, column: 13, "'dependency' needs 'name'")
    assertError(
      "name: x\ndependency: { name: a b }\nlaunches:\n  - expect: {}\n", line: 2, column: 21, "without spaces")
    assertError("name: x\ndependency: postgres\nlaunches:\n  - expect: {}\n", line: 2, column: 13, "must be a mapping")
  }

  func testValidateNamesTheFileLineAndColumn() throws {
    let folder = TemporaryDirectory("dependency-validate")
    let path = folder.file("bad.yaml")
    try "name: x\ndependency: { name: db }\nlaunches:\n  - dependency: { down_for: 2 parsecs }\n    expect: {}\n"
      .write(toFile: path, atomically: true, encoding: .utf8)
    let pid = ChildProcess.spawn(
      ChildProcess.product("chaos"), arguments: ["validate", folder.path], environment: [:],
      stdout: folder.file("out.txt"), stderr: folder.file("err.txt"))
    let status = ChildProcess.wait(pid)
    let output = [folder.file("out.txt"), folder.file("err.txt")].compactMap {
      try? String(contentsOfFile: $0, encoding: .utf8)
    }
    .joined()
    XCTAssertEqual(status, .exited(2), output)
    XCTAssertTrue(output.contains("\(path):4:29: bad duration '2 parsecs'"), output)
  }
}
