import ChaosKit
import Foundation
import XCTest

final class EventDecoderTests: XCTestCase {
  func decode(_ text: String) throws -> EventDecoder.Result {
    try EventDecoder.decode(Data(text.utf8), path: "events.ndjson")
  }

  func testWellFormedEventsDecodeWithLineNumbers() throws {
    let result = try decode(
      "{\"event\":\"launch\",\"pid\":7,\"t\":10,\"count\":1,\"mode\":\"normal\"}\n\n{\"event\":\"custom\",\"pid\":7,\"t\":11}\n"
    )
    XCTAssertEqual(result.events.map(\.name), ["launch", "custom"])
    XCTAssertEqual(result.events.map(\.line), [1, 3])
    XCTAssertEqual(result.events[0]["count"]?.int, 1)
    XCTAssertNil(result.truncatedTail)
  }

  func testTruncatedLastLineIsTolerated() throws {
    let result = try decode(
      "{\"event\":\"task_start\",\"pid\":7,\"t\":10,\"task\":\"a\"}\n{\"event\":\"crash\",\"pid\":7,\"t\":1")
    XCTAssertEqual(result.events.count, 1)
    XCTAssertEqual(result.truncatedTail, "{\"event\":\"crash\",\"pid\":7,\"t\":1")
  }

  func testGarbageLinesFailNamingFileLineAndCause() {
    let cases: [(String, Int, String)] = [
      (
        "{\"event\":\"launch\",\"pid\":1,\"t\":1,\"count\":0,\"mode\":\"normal\"}\nnot json\n{}\n", 2,
        "not a JSON object"
      ),
      ("[1,2]\n", 1, "not a JSON object"),
      ("{\"pid\":1,\"t\":1}\n", 1, "missing string field 'event'"),
      ("{\"event\":\"x\",\"t\":1}\n", 1, "missing integer field 'pid'"),
      ("{\"event\":\"x\",\"pid\":1}\n", 1, "missing integer field 't'"),
      ("{\"event\":\"launch\",\"pid\":1,\"t\":1,\"mode\":\"normal\"}\n", 1, "'launch' event: missing field 'count'"),
      ("{\"event\":\"crash\",\"pid\":1,\"t\":1}\n", 1, "'crash' event: missing field 'signal'"),
    ]
    for (text, line, cause) in cases {
      XCTAssertThrowsError(try decode(text), text) { error in
        guard let error = error as? EventDecodingError else { return XCTFail("\(error)") }
        XCTAssertEqual(error.path, "events.ndjson")
        XCTAssertEqual(error.line, line, text)
        XCTAssertTrue(error.cause.contains(cause), "\(error.cause) lacks \(cause)")
        XCTAssertTrue(error.description.hasPrefix("events.ndjson:\(line):\(error.column): "), error.description)
        XCTAssertGreaterThanOrEqual(error.column, 1)
      }
    }
  }
}

/// Every rejected line names its line and column.
final class EventDecoderPositionTests: XCTestCase {
  func testANonUTF8ByteIsNamedAtItsColumn() {
    var data = Data("{\"event\":\"launch\",\"pid\":1,\"t\":1,\"count\":0,\"mode\":\"normal\"}\n{\"event\":\"x".utf8)
    data.append(0xFF)
    data.append(contentsOf: Array("\"}\n".utf8))
    XCTAssertThrowsError(try EventDecoder.decode(data, path: "e.ndjson")) { error in
      XCTAssertEqual("\(error)", "e.ndjson:2:12: not UTF-8: invalid byte 0xff")
    }
  }

  func testAJSONSyntaxErrorNamesAColumnInItsLine() {
    let data = Data("{\"event\":\"launch\",\"pid\":1,,\"t\":1}\n".utf8)
    XCTAssertThrowsError(try EventDecoder.decode(data, path: "e.ndjson")) { error in
      let error = error as? EventDecodingError
      XCTAssertEqual(error?.line, 1)
      XCTAssertGreaterThan(error?.column ?? 0, 1, "\(String(describing: error))")
      XCTAssertEqual(error?.column, 27, "the second comma")
    }
  }

  /// The parser's own cause and offset, not a re-parse by another: a cut line in the middle of
  /// the file, and a number no Double holds.
  func testASyntaxErrorSaysWhatTheParserFound() {
    let data = Data("{\"event\":\"x\"\n{\"event\":\"x\",\"pid\":1e999,\"t\":1}\n".utf8)
    XCTAssertThrowsError(try EventDecoder.decode(data, path: "e.ndjson")) { error in
      XCTAssertEqual("\(error)", #"e.ndjson:1:13: not a JSON object: unexpected end of data in "{\"event\":\"x\"""#)
    }
    let second = Data(data.split(separator: 0x0A)[1] + [0x0A])
    XCTAssertThrowsError(try EventDecoder.decode(second, path: "e.ndjson")) { error in
      XCTAssertEqual((error as? EventDecodingError)?.column, 20, "\(error)")
      XCTAssertTrue("\(error)".contains("number 1e999 does not fit Double"), "\(error)")
    }
  }

  func testAMissingFieldIsTheWholeLine() {
    let data = Data("{\"event\":\"launch\",\"pid\":1,\"t\":1}\n".utf8)
    XCTAssertThrowsError(try EventDecoder.decode(data, path: "e.ndjson")) { error in
      XCTAssertEqual("\(error)", "e.ndjson:1:1: 'launch' event: missing field 'count'")
    }
  }

  /// Every events reproducer decodes or fails naming its line; its crash records decode or throw.
  func testEveryEventsReproducerDecodesOrFails() {
    for (name, data) in FuzzReproducers.all("fuzz-events") + FuzzReproducers.all("fuzz-crash-record") {
      do {
        let result = try EventDecoder.decode(data, path: name)
        for event in result.events where event.name == "crash" { _ = try? CrashRecord(event: event) }
      } catch {
        XCTAssertGreaterThanOrEqual(error.line, 1, "\(name): \(error)")
      }
    }
  }
}
