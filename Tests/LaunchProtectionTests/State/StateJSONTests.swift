import Failpoints
import Foundation
import XCTest

@testable import LaunchProtection

/// The hand-written state codec against Foundation's coders, which wrote every state file
/// before it: files they wrote are read into the same state (real files captured from the
/// Foundation-based store are the fixtures), files it writes are what `JSONEncoder` with
/// `.sortedKeys` wrote, byte for byte, and `JSONDecoder` reads them into the same state.
final class StateJSONTests: XCTestCase {
  /// `Tests/Fixtures/state-files`: launch-state.json files written by the store when it
  /// encoded with `JSONEncoder` (two real launches, three crafted states with every field,
  /// escapes and extreme times).
  private static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Fixtures/state-files")

  private func fixtureFiles() throws -> [(name: String, bytes: [UInt8])] {
    let names = try FileManager.default.contentsOfDirectory(atPath: Self.fixtures.path).filter { $0.hasSuffix(".json") }
      .sorted()
    XCTAssertEqual(names.count, 5, "the captured fixtures")
    return try names.map { ($0, Array(try Data(contentsOf: Self.fixtures.appendingPathComponent($0)))) }
  }

  private static func foundationEncode(_ state: LaunchState) throws -> [UInt8] {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    return Array(try encoder.encode(state))
  }

  private static func foundationDecode(_ json: [UInt8]) throws -> LaunchState {
    try JSONDecoder().decode(LaunchState.self, from: Data(json))
  }

  private static func decode(_ json: [UInt8]) throws(StateJSON.DecodeError) -> LaunchState {
    try StateJSON.Document(json).state()
  }

  /// The error decoding `json` gives; nil when it decodes.
  private static func decodeError(_ json: [UInt8]) -> StateJSON.DecodeError? {
    do {
      _ = try decode(json)
      return nil
    } catch {
      return error
    }
  }

  private static func decode(_ text: String) throws(StateJSON.DecodeError) -> LaunchState {
    try decode(Array(text.utf8))
  }

  func testFilesWrittenWithFoundationAreReadIntoTheSameState() throws {
    for (name, bytes) in try fixtureFiles() {
      guard case .success(let decoded) = StateFileFormat.decodeSlots(bytes) else { return XCTFail(name) }
      let expected = try Self.foundationDecode(decoded.stateJSON)
      XCTAssertEqual(try Self.decode(decoded.stateJSON), expected, name)
      // Through the store too: the slots, the version check, the ranges.
      let directory = NSTemporaryDirectory() + "state-json-\(UUID().uuidString)"
      try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
      defer { try? FileManager.default.removeItem(atPath: directory) }
      try Data(bytes).write(to: URL(fileURLWithPath: directory + "/launch-state.json"))
      XCTAssertEqual(try StateStore(directory: directory).read(), expected, name)
      // And the same bytes come out again: equal states stay equal bytes across the change.
      XCTAssertEqual(StateJSON.encode(expected), decoded.stateJSON, name)
    }
  }

  func testTheCraftedFixturesHoldWhatWasWritten() throws {
    let files = Dictionary(uniqueKeysWithValues: try fixtureFiles())
    guard let full = files["crafted-full.json"], case .success(let decoded) = StateFileFormat.decodeSlots(full) else {
      return XCTFail("crafted-full.json")
    }
    let state = try Self.decode(decoded.stateJSON)
    XCTAssertEqual(state.attemptedProtectLevel, 3)
    XCTAssertEqual(state.launchesInProgress.first?.process.startTime, UInt64.max)
    XCTAssertEqual(state.launchesInProgress.first?.process.machine, "node-7/\"ü\"")
    XCTAssertEqual(state.launchesInProgress.first?.startedSeconds, 1_764_001_234.123_456_7)
    XCTAssertEqual(state.launchesInProgress.last?.process.pid, Int32.max)
    XCTAssertEqual(
      state.lastCrashCause?.detail,
      "quote \" backslash \\ slash / newline \n tab \t cr \r bs \u{8} ff \u{C} nul \u{0} one \u{1} us \u{1F} del \u{7F} é 漢字 🚀 line\u{2028}sep"
    )
    XCTAssertEqual(state.lastCrashCause?.recordedSeconds, 253_402_300_799.999_97)
    XCTAssertEqual(state.lastUncountedExit?.decidedSeconds, 0.000_001)
  }

  func testEncodingIsWhatJSONEncoderWroteAndJSONDecoderReads() throws {
    var generator = SeededGenerator(seed: 30)
    for round in 0..<500 {
      let state = Self.randomState(&generator)
      let ours = StateJSON.encode(state)
      XCTAssertEqual(
        String(decoding: ours, as: UTF8.self), String(decoding: try Self.foundationEncode(state), as: UTF8.self),
        "round \(round)")
      XCTAssertEqual(try Self.foundationDecode(ours), state, "round \(round)")
      XCTAssertEqual(try Self.decode(ours), state, "round \(round)")
      XCTAssertNoThrow(try JSONSerialization.jsonObject(with: Data(ours)), "round \(round): one JSON object")
      XCTAssertFalse(ours.contains(0x0A), "one line")
    }
  }

  func testEveryControlCharacterAndTheSpecialOnesAreEscaped() throws {
    var state = LaunchState()
    let text = String(String.UnicodeScalarView((0..<0x80).compactMap(Unicode.Scalar.init))) + "\u{2028}\u{10FFFF}é"
    state.lastCrashCause = CrashCause(type: "t", detail: text, recordedSeconds: 1)
    let bytes = StateJSON.encode(state)
    XCTAssertFalse(bytes.contains { $0 < 0x20 }, "no raw control character")
    XCTAssertEqual(
      String(decoding: bytes, as: UTF8.self), String(decoding: try Self.foundationEncode(state), as: UTF8.self))
    XCTAssertEqual(try Self.decode(bytes).lastCrashCause?.detail, text)
    XCTAssertEqual(try Self.foundationDecode(bytes).lastCrashCause?.detail, text)
  }

  func testReadingIsTolerantOfWhatOtherWritersProduce() throws {
    var state = LaunchState()
    state.consecutiveCrashes = 3
    state.attemptedProtectLevel = 1
    state.launchesInProgress = [
      LaunchRecord(
        process: ProcessIdentity(pid: 7, startTime: 9, bootID: "b"), launchID: "l", phase: .launching,
        startedSeconds: 1_700_000_000.5)
    ]
    // Pretty-printed, unsorted, with escapes where none are needed and unknown keys.
    let pretty = JSONEncoder()
    pretty.outputFormatting = [.prettyPrinted, .withoutEscapingSlashes]
    XCTAssertEqual(try Self.decode(Array(try pretty.encode(state))), state)
    let text = """
       { "launchesInProgress" : [ { "process" : { "pid" : 7.0, "startTime" : 9e0, "bootID" : "\\u0062",
      "future" : [ { "a" : [ null, true, false, -1.5e-3, "x" ] } ] }, "launchID" : "\\u006c", "phase" : "launching",
      "startedAt" : 1.7000000005E9 } ], "consecutiveCrashes" : 3, "attemptedProtectLevel" : 1,
      "executableID" : null, "lastCrashCause" : null, "version" : 1, "version" : 1 }\r\n\t
      """
    XCTAssertEqual(try Self.decode(text), state)
    XCTAssertEqual(try Self.foundationDecode(Array(text.utf8)), state, "what Foundation read, too")
    // A surrogate pair, and a key written with escapes.
    let emoji = try Self.decode(
      #"{"version":1,"consecutiveCrashes":0,"launchesInProgress":[],"\u0065xecutableID":"\ud83d\ude80\/"}"#)
    XCTAssertEqual(emoji.executableID, "🚀/")
  }

  func testWhatIsNotAStateIsRejectedWithTheProblemsKind() {
    func error(_ text: String) -> StateJSON.DecodeError? { Self.decodeError(Array(text.utf8)) }
    let valid = #"{"version":1,"consecutiveCrashes":0,"launchesInProgress":[]}"#
    XCTAssertNil(error(valid))
    let state = #"{"version":1,"consecutiveCrashes":0,"launchesInProgress":[],"#
    for syntax in [
      "", " ", "{", "}", "{\"a\" 1}", "{\"a\":.5}", "{\"a\":+1}", "{\"a\":tru}", "{\"a\":\"open}", "{,}", "[,]",
      "{\"a\":1,,\"b\":2}", "[1,,2]", valid + "x", valid + valid, "{'a':1}", "NaN",
      // Cut right after a comma, where a closing bracket would be accepted (a trailing comma),
      // or after a key.
      "[1,", "{\"a\":1,", "{\"a\":1, ", state, "{\"a\"", "{\"a\" ",
      String(repeating: "[", count: 5000) + String(repeating: "]", count: 5000),
      // What JSONDecoder checks only in the fields it reads, so this codec too.
      state + "\"executableID\":\"\u{1}\"}", state + "\"executableID\":\"\\x\"}",
      state + "\"executableID\":\"\\ud800\"}", state + "\"executableID\":\"\\udc00\"}",
      state + "\"executableID\":\"\\u12\"}", state + "\"attemptedProtectLevel\":01}",
      state + "\"attemptedProtectLevel\":1.}", state + "\"attemptedProtectLevel\":-}",
      state + "\"attemptedProtectLevel\":1e}", state + "\"attemptedProtectLevel\":1e+}",
      state + "\"\\x\":1}",
    ] {
      guard case .syntax = error(syntax) else {
        XCTFail("\(syntax.prefix(40).debugDescription): \(String(describing: error(syntax)))")
        continue
      }
    }
    // JSONDecoder's leniencies, kept: a trailing comma, anything inside a string or number it
    // does not read, the first of repeated keys.
    for lenient in [
      state + "\"z\":[1,],}", state + "\"z\":{\"a\":1.,\"b\":01,\"c\":-,\"d\":1-2}}",
      state + "\"z\":\"\\x\\ud800\u{1}\"}",
      #"{"version":1,"consecutiveCrashes":0,"launchesInProgress":[],"consecutiveCrashes":5}"#,
    ] {
      XCTAssertEqual(try? Self.decode(lenient), try? Self.foundationDecode(Array(lenient.utf8)), lenient)
      XCTAssertEqual((try? Self.decode(lenient))?.consecutiveCrashes, 0, lenient)
    }
    // Invalid UTF-8 inside a string.
    let bad =
      Array(#"{"version":1,"consecutiveCrashes":0,"launchesInProgress":[],"executableID":""#.utf8) + [0xC3, 0x28]
      + Array(#""}"#.utf8)
    XCTAssertThrowsError(try Self.decode(bad)) { XCTAssertEqual(($0 as? StateJSON.DecodeError)?.isSyntax, true) }
    XCTAssertEqual(error(#"{"version":1,"consecutiveCrashes":3}"#), .missing(path: "launchesInProgress"))
    XCTAssertEqual(
      error(#"{"version":1,"consecutiveCrashes":0,"launchesInProgress":[{"launchID":"l"}]}"#),
      .missing(path: "launchesInProgress.0.process"))
    for wrong in [
      #"[1, 2, 3]"#, #"{"version":"1","consecutiveCrashes":0,"launchesInProgress":[]}"#,
      #"{"version":1,"consecutiveCrashes":null,"launchesInProgress":[]}"#,
      #"{"version":1,"consecutiveCrashes":1.5,"launchesInProgress":[]}"#,
      #"{"version":1,"consecutiveCrashes":18446744073709551616,"launchesInProgress":[]}"#,
      #"{"version":1,"consecutiveCrashes":1e308,"launchesInProgress":[]}"#,
      #"{"version":1,"consecutiveCrashes":0,"launchesInProgress":{}}"#,
      #"{"version":1,"consecutiveCrashes":0,"launchesInProgress":[],"lastUncountedExit":{"reason":"gone","pid":1,"decidedAt":1}}"#,
      #"{"version":1,"consecutiveCrashes":0,"launchesInProgress":[],"lastCrashCause":{"type":"t","recordedAt":1e999,"afterLaunch":false}}"#,
      #"{"version":1,"consecutiveCrashes":0,"launchesInProgress":[],"lastCrashCause":{"type":"t","recordedAt":1,"afterLaunch":0}}"#,
    ] {
      guard case .wrongType = error(wrong) else {
        XCTFail("\(wrong): \(String(describing: error(wrong)))")
        continue
      }
    }
  }

  /// A byte that is not UTF-8 in a string the state reads is refused, as `JSONDecoder`
  /// refuses it: each of 0x80 (the lowest byte that is not ASCII, a continuation byte alone),
  /// 0xFF and an overlong encoding.
  func testBytesThatAreNotUTF8AreRefusedInAStringTheStateReads() throws {
    let head = Array(#"{"version":1,"consecutiveCrashes":0,"launchesInProgress":[],"executableID":""#.utf8)
    for bad: [UInt8] in [[0x80], [0x41, 0x80], [0xFF], [0xC0, 0x80]] {
      let json = head + bad + Array(#""}"#.utf8)
      XCTAssertThrowsError(try Self.foundationDecode(json), "JSONDecoder refuses \(bad)")
      let error = Self.decodeError(json)
      guard case .syntax? = error else { return XCTFail("\(bad): \(String(describing: error))") }
    }
  }

  /// A document that is a bare number, its last digit the file's last byte, is refused (it is
  /// no state), never read past its end.
  func testABareNumberIsNoState() {
    for text in ["5", "-1", "0", "1.5", "1e5", "12", "1.", "1e"] {
      XCTAssertThrowsError(try Self.decode(text), text)
    }
  }

  /// A literal that is the whole document is JSON, only not a state: a wrong type, not a
  /// syntax error (its last letter is the file's last byte).
  func testABareLiteralIsJSONButNoState() {
    for text in ["true", "false", "null", "[]", "\"x\""] {
      let error = Self.decodeError(Array(text.utf8))
      guard case .wrongType? = error else { return XCTFail("\(text): \(String(describing: error))") }
    }
  }

  /// Nesting up to JSONDecoder's limit, 512, parses; one level more does not.
  func testNestingStopsAtJSONDecodersLimit() {
    func nested(_ depth: Int) -> [UInt8] {
      Array((String(repeating: "[", count: depth) + String(repeating: "]", count: depth)).utf8)
    }
    XCTAssertNoThrow(try StateJSON.Document(nested(512)))
    XCTAssertThrowsError(try StateJSON.Document(nested(513)))
  }

  /// A time too small for a Double (it would read as 0) does not fit, as for `JSONDecoder`;
  /// a zero written any way does.
  func testATimeThatUnderflowsToZeroDoesNotFitButZeroDoes() throws {
    var state = LaunchState()
    state.launchesInProgress = [
      LaunchRecord(
        process: ProcessIdentity(pid: 7, startTime: 9, bootID: "b"), launchID: "l", phase: .launching,
        startedSeconds: 12_345.5)
    ]
    let text = String(decoding: try Self.foundationEncode(state), as: UTF8.self)
    XCTAssertTrue(text.contains("12345.5"))
    for tiny in ["1e-400", "9e-400", "0.0000000000000000000000000000000000000000000000001e-400", "-5E-999"] {
      let json = Array(text.replacingOccurrences(of: "12345.5", with: tiny).utf8)
      XCTAssertThrowsError(try Self.foundationDecode(json), "JSONDecoder refuses \(tiny)")
      let error = Self.decodeError(json)
      guard case .wrongType? = error else { return XCTFail("\(tiny): \(String(describing: error))") }
    }
    for zero in ["0", "0.0", "0e-400", "-0.000e5"] {
      let json = Array(text.replacingOccurrences(of: "12345.5", with: zero).utf8)
      XCTAssertEqual(try Self.decode(json).launchesInProgress.first?.startedSeconds, 0, zero)
      XCTAssertEqual(try Self.foundationDecode(json).launchesInProgress.first?.startedSeconds, 0, zero)
    }
  }

  func testTheVersionIsReadBeforeTheRest() throws {
    XCTAssertEqual(try StateJSON.Document(Array(#"{"version": 7, "somethingNew": true}"#.utf8)).version(), 7)
    XCTAssertEqual(
      try StateJSON.Document(Array(#"{"version": 9223372036854775807}"#.utf8)).version(), Int.max)
    XCTAssertThrowsError(try StateJSON.Document(Array(#"{"version": 7, "x": }"#.utf8)), "JSON first")
  }
}

extension StateJSON.DecodeError {
  fileprivate var isSyntax: Bool { if case .syntax = self { true } else { false } }
}
