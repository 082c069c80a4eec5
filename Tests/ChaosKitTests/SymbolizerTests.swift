import ChaosKit
import Foundation
import XCTest

/// `Symbolizer` without its tools (no llvm-symbolizer, demangler or addr2line) on odd crash
/// records, those the fuzzer (Fuzz/, CI/fuzz `fuzz-crash-record`) found crashing it included:
/// each symbolizes or is refused as a record, never a crash.
final class SymbolizerTests: XCTestCase {
  /// `chaos symbolize` on a record whose module map puts a module's base above its start:
  /// computing the frame's offset (address - base) overflowed and trapped.
  func testSymbolizeSkipsAModuleWhoseBaseIsAboveTheAddress() throws {
    let data = try FuzzReproducers.one("fuzz-crash-record", "symbolizer-base-above-address.json")
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

  /// Every crash-record reproducer symbolizes (with no tools) or is refused as a record.
  func testEveryCrashRecordReproducerSymbolizes() {
    let symbolizer = Symbolizer(llvmSymbolizer: nil, demangler: nil, addr2line: nil)
    for (name, data) in FuzzReproducers.all("fuzz-crash-record") {
      guard let record = try? CrashRecord(json: data) else { continue }
      XCTAssertEqual(symbolizer.symbolize(record).frames.count, record.frames.count, name)
    }
  }
}
