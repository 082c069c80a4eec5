import Failpoints
import Foundation
import LaunchProtection
import XCTest

@testable import ChaosKit

/// `JSONValue(parsing:)`, the state codec's parser building the harness's values, must accept
/// exactly what `JSONDecoder` accepts for a `JSONValue`, and give the same value: it replaced
/// `JSONDecoder` on every event line.
final class JSONValueReadingTests: XCTestCase {
  private static let corpus = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("Fuzz/Corpus")

  private func parsed(_ bytes: [UInt8]) -> JSONValue? {
    try? JSONValue(parsing: bytes)
  }

  private func decoded(_ bytes: [UInt8]) -> JSONValue? {
    try? JSONDecoder().decode(JSONValue.self, from: Data(bytes))
  }

  private func assertAgrees(_ bytes: [UInt8], _ note: String, file: StaticString = #filePath, line: UInt = #line) {
    let ours = parsed(bytes)
    let foundation = decoded(bytes)
    XCTAssertEqual(
      ours, foundation, "\(note): \(String(decoding: bytes.prefix(120), as: UTF8.self).debugDescription)",
      file: file, line: line)
  }

  /// The lines the fuzzers start from: real event files and crash records.
  private func corpusLines() throws -> [[UInt8]] {
    var lines: [[UInt8]] = []
    for target in ["fuzz-events", "fuzz-crash-record"] {
      let directory = Self.corpus.appendingPathComponent(target)
      for name in try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted() {
        let data = try Data(contentsOf: directory.appendingPathComponent(name))
        lines += data.split(separator: 0x0A).map(Array.init)
      }
    }
    return lines
  }

  func testCorpusLinesParseAsJSONDecoderDecodesThem() throws {
    let lines = try corpusLines()
    XCTAssertGreaterThan(lines.count, 10)
    for (index, line) in lines.enumerated() { assertAgrees(line, "corpus line \(index)") }
    // The corpus holds damaged lines too (a truncated write); most are whole events.
    XCTAssertGreaterThan(lines.filter { parsed($0) != nil }.count, lines.count * 3 / 4)
  }

  /// Every corpus line, damaged in many small ways (a byte deleted, replaced or inserted, the
  /// line cut): accepted and refused alike, with equal values.
  func testMutatedLinesAgreeWithJSONDecoder() throws {
    var generator = SeededGenerator(seed: 0x5EED_CAFE)
    let alphabet = Array(#"{}[]":,\/ -+.0123456789eEtrufalsn\u00e9"#.utf8) + [0x00, 0x1F, 0x7F, 0xC3, 0xA9, 0xFF]
    var checked = 0
    for line in try corpusLines() {
      for _ in 0..<40 {
        var bytes = line
        for _ in 0...(generator.next() % 3) {
          guard !bytes.isEmpty else { break }
          let at = Int(generator.next() % UInt64(bytes.count))
          switch generator.next() % 4 {
          case 0: bytes.remove(at: at)
          case 1: bytes[at] = alphabet[Int(generator.next() % UInt64(alphabet.count))]
          case 2: bytes.insert(alphabet[Int(generator.next() % UInt64(alphabet.count))], at: at)
          default: bytes.removeSubrange(at...)
          }
        }
        assertAgrees(bytes, "mutated line")
        checked += 1
      }
    }
    XCTAssertGreaterThan(checked, 500)
  }

  func testTheCornersOfTheGrammar() {
    let cases = [
      #"{}"#, #"[]"#, #" { "a" : [ 1 , 2 ] } "#, #"{"a":1,"a":2}"#, #"0"#, #"-0"#, #"01"#, #"1."#, #".5"#, #"-"#,
      #"1e5"#, #"1E+5"#, #"1e-5"#, #"1e"#, #"2.5e-3"#, #"123456789012345678901234567890"#, #"1e400"#, #"-1e400"#,
      #""a\"b\\c\/d\b\f\n\r\t""#, #""\u00e9\u4e2d""#, #""\ud83d\ude00""#, #""\ud83d""#, #""\ude00""#,
      #""\ud83dx""#, #""\u12""#, #""\x""#, "\"a\tb\"", "\"\u{1}\"", #"true"#, #"tru"#, #"nul"#, #"null x"#,
      #"[1,]"#, #"[,]"#, #"[1,,]"#, #"{,}"#, #"{"a":1,}"#, #"{"a":1,"a":"\x"}"#, #"{"a":1,"a":[01, "\ud800"]}"#,
      #"{"a":1,"\ud800":2}"#, #"{"a\x":1}"#,
      #"1e-400"#, #"0e-400"#, #"1.5e-320"#, #"[1-2]"#, #"{"a":01}"#, #""\u00""#, "[\"\u{7F}\"]", "\t[ 1 ]\r\n",
      #"{"a"}"#, #"{1:2}"#, #"[1 2]"#, "", " ", #""unterminated"#, #"{"a":"é"}"#,
    ]
    for text in cases { assertAgrees(Array(text.utf8), "case") }
    assertAgrees([0x22, 0xC3, 0x22], "a cut UTF-8 sequence")
    assertAgrees([0x22, 0xFF, 0x22], "a byte that is never UTF-8")
  }

  func testNestingAsDeepAsJSONDecoderAllowsAndNoDeeper() {
    for depth in [510, 511, 512, 513, 514, 600] {
      let text = String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
      assertAgrees(Array(text.utf8), "depth \(depth)")
    }
  }
}

extension JSONValueReadingTests {
  /// `jsonText` (what the harness writes as `CHAOS_APP`) reads back as the same value, through
  /// JSONDecoder and through the parser, for every kind of value and awkward string.
  func testJSONTextReadsBackAsTheSameValue() throws {
    let values: [JSONValue] = [
      .object([:]), .array([]), .null, .bool(true), .bool(false), .number(0), .number(-3), .number(1_000_000),
      .number(0.25), .number(1e-7), .number(1e300), .number(-2.5e20), .number(9_007_199_254_740_992),
      .string(""), .string("quote \" back \\ slash / tab \t nl \n cr \r bell \u{7} del \u{7F} é 中 😀"),
      .object([
        "threshold": .number(1_000_000), "life_actions": .array([.string("serve")]),
        "nested": .object(["b": .bool(false), "a": .null]),
      ]),
    ]
    for value in values {
      let text = value.jsonText
      XCTAssertEqual(try JSONDecoder().decode(JSONValue.self, from: Data(text.utf8)), value, text)
      XCTAssertEqual(parsed(Array(text.utf8)), value, text)
    }
    XCTAssertEqual(JSONValue.object(["b": .number(1), "a": .number(2)]).jsonText, #"{"a":2,"b":1}"#, "sorted keys")
  }
}

extension JSONValueReadingTests {
  /// A crash record built from the parsed fields equals the one `JSONDecoder` decodes from the
  /// line; a line the fast path does not take (here: a fractional signal) still decodes or fails
  /// through `JSONDecoder`, as before.
  func testCrashRecordsFromParsedFieldsEqualDecodedOnes() throws {
    var compared = 0
    for line in try corpusLines() {
      guard case .object(let fields)? = parsed(line), fields["event"] == .string("crash") else { continue }
      let decoded = try? JSONDecoder().decode(CrashRecord.self, from: Data(line))
      // A line the fast path declines goes to JSONDecoder (CrashRecord(event:)), as before.
      guard let fast = CrashRecord(fields: fields) else { continue }
      XCTAssertEqual(fast, decoded, String(decoding: line.prefix(100), as: UTF8.self))
      compared += 1
    }
    XCTAssertGreaterThanOrEqual(compared, 3)
    var fields: [String: JSONValue] = ["signal": .number(11.5), "frames": .array([]), "modules": .array([])]
    XCTAssertNil(CrashRecord(fields: fields))
    fields["signal"] = .number(11)
    XCTAssertEqual(CrashRecord(fields: fields)?.signalName, "SIGSEGV")
    XCTAssertEqual(CrashRecord(fields: fields)?.addr, "0x0")
  }
}

extension JSONValueReadingTests {
  /// The one escaper writes a string as `JSONEncoder` writes it, `/` as `\/` included: the state
  /// file, `CHAOS_APP` and ChaosProbe's events all go through it.
  func testStringsAreEscapedAsJSONEncoderEscapesThem() throws {
    let awkward = (0..<0x20).map { String(UnicodeScalar(UInt8($0))) }.joined() + #"a/b\c"d é 中 😀 "# + "\u{7F}\u{2028}"
    for text in ["", "plain", "/usr/bin/app", awkward] {
      let foundation = String(decoding: try JSONEncoder().encode(text), as: UTF8.self)
      XCTAssertEqual(StateJSON.quoted(text), foundation)
      XCTAssertEqual(JSONValue.string(text).jsonText, foundation)
    }
    XCTAssertEqual(JSONValue.object(["path": .string("/tmp/x")]).jsonText, #"{"path":"\/tmp\/x"}"#)
  }

  /// What the parser refuses it refuses with a cause and the byte offset where, which an events
  /// file's error turns into a column.
  func testARefusedTextSaysWhereAndWhy() {
    func error(_ text: String) -> String? {
      do {
        _ = try JSONValue(parsing: Array(text.utf8))
        return nil
      } catch {
        return "\(error.reason) at \(error.offset)"
      }
    }
    XCTAssertEqual(error(#"{"a":1,,"b":2}"#), "expected a key at 7")
    XCTAssertEqual(error(#"{"a" 1}"#), "expected ':' at 5")
    XCTAssertEqual(error(#"[1 2]"#), "expected ',' or ']' at 3")
    XCTAssertEqual(error(#"{"a":"b\x"}"#), "invalid escape at 7")
    XCTAssertEqual(error(#"[true, 01]"#), "invalid number 01 at 7")
    XCTAssertEqual(error(#"[1e400]"#), "number 1e400 does not fit Double at 1")
    XCTAssertEqual(error(#"{"a":1"#), "unexpected end of data at 6")
    XCTAssertEqual(error(#"{} x"#), "unexpected data after the value at 3")
    XCTAssertNil(error(#"{"a":[1,{"b":null}],}"#))
  }
}
