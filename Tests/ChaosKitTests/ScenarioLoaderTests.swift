import ChaosKit
import Foundation
import TestSupport
import XCTest

final class ScenarioLoaderTests: XCTestCase {
  func assertError(
    _ yaml: String, line: Int, column: Int, _ message: String, file: StaticString = #filePath, at: UInt = #line
  ) {
    XCTAssertThrowsError(try ScenarioLoader.parse(yaml, path: "s.yaml"), file: file, line: at) { error in
      guard let error = error as? ScenarioError else { return XCTFail("\(error)", file: file, line: at) }
      XCTAssertEqual(error.path, "s.yaml", file: file, line: at)
      XCTAssertEqual([error.line, error.column], [line, column], "\(error)", file: file, line: at)
      XCTAssertTrue(error.message.contains(message), "\(error.message) lacks \(message)", file: file, line: at)
    }
  }

  let valid = """
    name: ok
    launches:
      - failpoints: "task.network=segv"
        expect: { outcome: crash, signal: SIGSEGV, count: 0 }
    """

  func testAValidScenarioLoadsWithDefaults() throws {
    let scenario = try ScenarioLoader.parse(valid, path: "Scenarios/protect/ok.yaml")
    XCTAssertEqual(scenario.name, "ok")
    XCTAssertEqual(scenario.timeoutSeconds, 10)
    XCTAssertEqual(scenario.target, "chaos-target")
    XCTAssertEqual(scenario.swiftBacktrace, "enable=no")
    XCTAssertEqual(scenario.group, "protect")
    XCTAssertEqual(scenario.launches.count, 1)
    XCTAssertEqual(scenario.launches[0].line, 3)
    XCTAssertEqual(scenario.launches[0].expect.outcome, .crash)
    XCTAssertEqual(scenario.launches[0].expect.signal, SIGSEGV)
  }

  func testEachKindOfBadFileIsLocated() {
    assertError("name: x\nlaunch:\n  - expect: {}\n", line: 2, column: 1, "unknown key 'launch' in scenario")
    assertError("launches:\n  - expect: {}\n", line: 1, column: 1, "missing required key 'name'")
    assertError("name: x\n", line: 1, column: 1, "missing required key 'launches'")
    assertError("name: x\nlaunches: []\n", line: 2, column: 11, "at least one launch")
    assertError("name: x\nlaunches:\n  - failpoints: a=segv\n", line: 3, column: 5, "missing required key 'expect'")
    assertError(
      "name: x\nlaunches:\n  - expect: { count: many }\n", line: 3, column: 22, "'count' must be a whole number")
    assertError(
      "name: x\nlaunches:\n  - expect: { outcome: crashed }\n", line: 3, column: 24, "unknown outcome 'crashed'")
    assertError(
      "name: x\nlaunches:\n  - expect: { signal: SIGWHAT }\n", line: 3, column: 23, "unknown signal 'SIGWHAT'")
    assertError("name: x\ntimeout: soon\nlaunches:\n  - expect: {}\n", line: 2, column: 10, "bad duration 'soon'")
    assertError("name: x\ntimeout: 0s\nlaunches:\n  - expect: {}\n", line: 2, column: 10, "bad duration")
    assertError("name: x\nlaunches:\n  - expect: { mode: panic }\n", line: 3, column: 21, "unknown mode 'panic'")
    assertError(
      "name: x\nlaunches:\n  - repeat: 0\n    expect: {}\n", line: 3, column: 13, "'repeat' must be at least 1")
    assertError(
      "name: x\nlaunches:\n  - expect: { state: { counted: 1 } }\n", line: 3, column: 24,
      "unknown key 'counted' in state")
    assertError(
      "name: x\nlaunches:\n  - before: [{ write_state: a, new_binary: true }]\n    expect: {}\n", line: 3, column: 14,
      "exactly one of")
    assertError("name: x\nname: y\nlaunches:\n  - expect: {}\n", line: 1, column: 1, "duplicate key 'name'")
    assertError("name: [x\nlaunches: {}\n", line: 2, column: 9, "invalid YAML")
    assertError("- just\n- a list\n", line: 1, column: 1, "'scenario' must be a mapping")
    assertError(
      "name: x\nlaunches:\n  - send_signal: { signal: SIGTERM }\n    expect: {}\n", line: 3, column: 18,
      "send_signal needs 'signal' and 'after_event'")
    assertError("name: x\ndaemon: yes please\nlaunches:\n  - expect: {}\n", line: 2, column: 9, "'daemon' must be true")
    assertError(
      "name: x\ndaemon: { stop_timeout: 0s }\nlaunches:\n  - expect: {}\n", line: 2, column: 25,
      "bad duration '0s' for 'stop_timeout'")
    assertError(
      "name: x\ndaemon: { grace: 1s }\nlaunches:\n  - expect: {}\n", line: 2, column: 11,
      "unknown key 'grace' in daemon")
  }

  /// `daemon:` in each of its forms; `stop_after` may be 0 (its default), `stop_timeout` not.
  func testDaemonForms() throws {
    func daemon(_ text: String) throws -> DaemonSpec? {
      try ScenarioLoader.parse("name: x\ndaemon: \(text)\nlaunches:\n  - expect: {}\n", path: "d.yaml").daemon
    }
    XCTAssertEqual(try daemon("true"), DaemonSpec())
    XCTAssertNil(try daemon("false"))
    XCTAssertEqual(try daemon("{ stop_after: 500ms, stop_timeout: 2s }"), DaemonSpec(stopAfter: 0.5, stopTimeout: 2))
    XCTAssertEqual(try daemon("{ stop_after: 0s }"), DaemonSpec())
  }

  /// Writes `bytes` to a file and loads it; the error, or a failure when it loads.
  func loadError(_ bytes: [UInt8], file: StaticString = #filePath, line: UInt = #line) -> ScenarioError? {
    let directory = TemporaryDirectory("scenario-loader")
    let path = directory.file("s.yaml")
    XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data(bytes)), file: file, line: line)
    do {
      _ = try ScenarioLoader.load(path: path)
      XCTFail("loaded", file: file, line: line)
      return nil
    } catch {
      XCTAssertEqual(error.path, path, file: file, line: line)
      return error
    }
  }

  func testAFileThatIsNotUTF8NamesTheFirstInvalidByte() throws {
    // Line 3, after "a: b\u{e9}" (the é is two bytes): byte offset 6 in the line, column 7.
    let bytes = Array("name: x\nlaunches:\na: b\u{e9}".utf8) + [0xFF] + Array(" d\n\u{fe}".utf8)
    let error = try XCTUnwrap(loadError(bytes))
    XCTAssertEqual([error.line, error.column], [3, 7], "\(error)")
    XCTAssertEqual(error.message, "not UTF-8: invalid byte 0xff")
    XCTAssertTrue(error.description.hasSuffix("s.yaml:3:7: not UTF-8: invalid byte 0xff"), error.description)
  }

  func testInvalidUTF8AtTheStartAndACutSequenceAtTheEnd() throws {
    let first = try XCTUnwrap(loadError([0x80, 0x41]))
    XCTAssertEqual([first.line, first.column], [1, 1])
    XCTAssertEqual(first.message, "not UTF-8: invalid byte 0x80")
    // A sequence cut short (0xE2 0x82 wants one more byte) is invalid where it starts.
    let cut = try XCTUnwrap(loadError(Array("name: x\n\nab".utf8) + [0xE2, 0x82]))
    XCTAssertEqual([cut.line, cut.column], [3, 3])
    XCTAssertEqual(cut.message, "not UTF-8: invalid byte 0xe2")
  }

  func testAnUnreadableFileHasNoPosition() {
    XCTAssertThrowsError(try ScenarioLoader.load(path: "/nonexistent/s.yaml")) { error in
      XCTAssertEqual("\(error)", "/nonexistent/s.yaml: cannot read the file")
    }
  }

  func testACharacterYAMLRefusesIsLocated() {
    // libyaml's reader reports an offset, not a mark: it becomes the line and column.
    assertError("name: x\nlaunches:\n  - a\u{1}\n", line: 3, column: 6, "invalid YAML: control characters")
    assertError("name: \u{e9}\u{7}\n", line: 1, column: 8, "U+7")
  }

  func testDurationsAndAppValues() throws {
    let scenario = try ScenarioLoader.parse(
      "name: x\ntimeout: 1500ms\napp: { threshold: 2, repairs: [clear-cache], chain: false }\nlaunches:\n  - timeout: 2m\n    expect: {}\n",
      path: "s.yaml")
    XCTAssertEqual(scenario.timeoutSeconds, 1.5)
    XCTAssertEqual(scenario.launches[0].timeoutSeconds, 120)
    XCTAssertEqual(
      scenario.app,
      .object(["threshold": .number(2), "repairs": .array([.string("clear-cache")]), "chain": .bool(false)]))
  }

  func testTheJSONSchemaIsInStepWithTheLoader() throws {
    let path = Repository.root + "/Scenarios/scenario.schema.json"
    let schema = try XCTUnwrap(
      try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any])
    func keys(_ object: Any?) -> [String] {
      ((object as? [String: Any])?["properties"] as? [String: Any])?.keys.sorted() ?? []
    }
    let definitions = schema["$defs"] as? [String: Any]
    XCTAssertEqual(keys(schema), ScenarioLoader.scenarioKeys.sorted())
    XCTAssertEqual(keys(definitions?["launch"]), ScenarioLoader.launchKeys.sorted())
    XCTAssertEqual(keys(definitions?["expect"]), ScenarioLoader.expectKeys.sorted())
    XCTAssertEqual(keys(definitions?["state"]), ScenarioLoader.stateKeys.sorted())
    XCTAssertEqual(keys(definitions?["setup"]), ScenarioLoader.setupKeys.sorted())
    XCTAssertEqual(keys(definitions?["send_signal"]), ScenarioLoader.signalKeys.sorted())
    let outcomes =
      ((definitions?["expect"] as? [String: Any])?["properties"] as? [String: Any])?["outcome"] as? [String: Any]
    XCTAssertEqual((outcomes?["enum"] as? [String])?.sorted(), Outcome.allCases.map(\.rawValue).sorted())
  }

  func testShardsPartitionExactly() {
    let files = (1...23).map { "Scenarios/g\($0 % 4)/s\($0).yaml" }
    for count in 1...6 {
      let shards = (1...count).map { ScenarioDiscovery.shard(files, index: $0, count: count) }
      XCTAssertEqual(shards.flatMap { $0 }.sorted(), files.sorted(), "shards of \(count) cover everything")
      XCTAssertEqual(Set(shards.flatMap { $0 }).count, files.count, "shards of \(count) are disjoint")
      XCTAssertEqual(
        shards, (1...count).map { ScenarioDiscovery.shard(files.reversed(), index: $0, count: count) },
        "order-independent")
    }
  }

  func testContainerIsABooleanAtTheTopAndPerLaunch() throws {
    let scenario = try ScenarioLoader.parse(
      "name: c\ncontainer: true\nlaunches:\n  - expect: {}\n  - container: false\n    expect: {}\n", path: "s.yaml")
    XCTAssertTrue(scenario.container)
    XCTAssertEqual(scenario.launches.map(\.container), [nil, false])
    XCTAssertFalse(try ScenarioLoader.parse("name: c\nlaunches:\n  - expect: {}\n", path: "s.yaml").container)
    assertError(
      "name: c\ncontainer: yes please\nlaunches:\n  - expect: {}\n", line: 2, column: 12,
      "'container' must be true or false")
    assertError(
      "name: c\nlaunches:\n  - container: 1s\n    expect: {}\n", line: 3, column: 16,
      "'container' must be true or false")
  }

  /// Every scenario reproducer parses or fails with a located error.
  func testEveryScenarioReproducerIsAnError() {
    for (name, data) in FuzzReproducers.all("fuzz-scenario") {
      let text = String(decoding: data, as: UTF8.self)
      XCTAssertThrowsError(try ScenarioLoader.parse(text, path: name), name)
    }
  }
}
