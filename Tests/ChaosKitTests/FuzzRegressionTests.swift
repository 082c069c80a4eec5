import ChaosKit
import Foundation
import XCTest

/// Inputs the fuzzers (Fuzz/, CI/fuzz) found crashing, kept in Fuzz/Regressions/<target>/:
/// each must now be an error or a value, never a crash.
final class FuzzRegressionTests: XCTestCase {
  /// Fuzz/Regressions, found from this file's path.
  static let regressions = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("Fuzz/Regressions")

  func reproducer(_ target: String, _ name: String) throws -> Data {
    try Data(contentsOf: Self.regressions.appendingPathComponent(target).appendingPathComponent(name))
  }

  func reproducers(_ target: String) -> [(name: String, data: Data)] {
    let directory = Self.regressions.appendingPathComponent(target)
    let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
    return names.sorted().compactMap { name in
      (try? Data(contentsOf: directory.appendingPathComponent(name))).map { (name, $0) }
    }
  }

  /// `chaos symbolize` on a record whose module map puts a module's base above its start:
  /// computing the frame's offset (address - base) overflowed and trapped.
  func testSymbolizeSkipsAModuleWhoseBaseIsAboveTheAddress() throws {
    let data = try reproducer("fuzz-crash-record", "symbolizer-base-above-address.json")
    let record = try CrashRecord(json: data)
    XCTAssertEqual(record.modules.first?.base, "cb")
    let backtrace = Symbolizer(llvmSymbolizer: nil, demangler: nil, addr2line: nil).symbolize(record)
    XCTAssertEqual(backtrace.frames.count, 1)
    XCTAssertNil(backtrace.frames[0].module, "a frame below its module's base has no module offset")
    XCTAssertNil(backtrace.frames[0].offset)
  }

  /// A frame exactly at a module's base (offset 0) that is not the first frame: the lookup
  /// (offset - 1, for return addresses) must not wrap below zero.
  func testSymbolizeAFrameAtItsModulesBase() throws {
    let json = """
      {"signal":11,"frames":["0x5000","0x1000"],"modules":[{"path":"/a","base":"0x1000","start":"0x1000","end":"0x2000"}]}
      """
    let record = try CrashRecord(json: Data(json.utf8))
    let backtrace = Symbolizer(llvmSymbolizer: nil, demangler: nil, addr2line: nil).symbolize(record)
    XCTAssertEqual(backtrace.frames.map(\.offset), [nil, "0x0"])
    XCTAssertEqual(backtrace.frames[1].module, "/a")
  }

  /// Every scenario reproducer parses or fails with a located error.
  func testEveryScenarioReproducerIsAnError() {
    for (name, data) in reproducers("fuzz-scenario") {
      let text = String(decoding: data, as: UTF8.self)
      XCTAssertThrowsError(try ScenarioLoader.parse(text, path: name), name)
    }
  }

  /// Every events reproducer decodes or fails naming its line; its crash records decode or throw.
  func testEveryEventsReproducerDecodesOrFails() {
    for (name, data) in reproducers("fuzz-events") + reproducers("fuzz-crash-record") {
      do {
        let result = try EventDecoder.decode(data, path: name)
        for event in result.events where event.name == "crash" { _ = try? CrashRecord(event: event) }
      } catch {
        XCTAssertGreaterThanOrEqual(error.line, 1, "\(name): \(error)")
      }
    }
  }

  /// Every crash-record reproducer symbolizes (with no tools) or is refused as a record.
  func testEveryCrashRecordReproducerSymbolizes() {
    let symbolizer = Symbolizer(llvmSymbolizer: nil, demangler: nil, addr2line: nil)
    for (name, data) in reproducers("fuzz-crash-record") {
      guard let record = try? CrashRecord(json: data) else { continue }
      XCTAssertEqual(symbolizer.symbolize(record).frames.count, record.frames.count, name)
    }
  }
}
