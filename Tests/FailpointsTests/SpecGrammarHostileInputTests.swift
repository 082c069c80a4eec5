import Failpoints
import Foundation
import XCTest

/// Failpoint specs from the fuzzer (Fuzz/, CI/fuzz `fuzz-failpoint-spec`): whatever the text,
/// the parser returns specs or a `FailpointSpecError` pointing into it, never crashes.
final class SpecGrammarHostileInputTests: XCTestCase {
  /// Fuzz/Regressions/fuzz-failpoint-spec, found from this file's path.
  static let regressions = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("Fuzz/Regressions/fuzz-failpoint-spec")

  func assertParsesOrFailsClearly(_ text: String, _ context: String, file: StaticString = #filePath, line: UInt = #line)
  {
    for parse in [{ try FailpointSpecParser.parse(text) }, { [try FailpointSpecParser.parseActions(text, name: "f")] }]
    {
      do {
        _ = try parse()
      } catch let error as FailpointSpecError {
        XCTAssertTrue((0...text.count).contains(error.offset), "\(context): \(error)", file: file, line: line)
        XCTAssertFalse(error.message.isEmpty, context, file: file, line: line)
      } catch {
        XCTFail("\(context): \(error)", file: file, line: line)
      }
    }
  }

  /// Every reproducer kept in Fuzz/Regressions/fuzz-failpoint-spec (read like CHAOS_FAILPOINTS).
  func testEveryReproducerParsesOrFailsClearly() {
    let names = (try? FileManager.default.contentsOfDirectory(atPath: Self.regressions.path)) ?? []
    for name in names.sorted() {
      guard let data = try? Data(contentsOf: Self.regressions.appendingPathComponent(name)) else { continue }
      assertParsesOrFailsClearly(String(decoding: data, as: UTF8.self), name)
    }
  }

  /// Shapes the fuzzer leans on: unbalanced parentheses, nested threads, arrows at the edges,
  /// numbers past Int, combining marks on the grammar's punctuation, an empty text.
  func testHostileShapesFailClearly() {
    let cases = [
      "", ";", "=", "a=", "=segv", "a=print(", "a=print())", "a=thread(", "a=thread()", "a=thread(thread(",
      "a=thread(thread(segv))", "a=->", "a=segv->", "->segv", "a=99999999999999999999*segv", "a=1e999%segv",
      "a=nan%segv", "a=-0%segv", "a=exit(256)", "a=exit(-1)", "a=return(-1)", "a=return(0)", "a=sleep(-5)",
      "a=print(x)\u{301}", "a=segv-\u{301}>abort", "a=%*", "a=(%)", "a\u{0}=segv", "a=segv;;;b=off;",
      String(repeating: "a=thread(", count: 200) + "segv" + String(repeating: ")", count: 200),
    ]
    for text in cases { assertParsesOrFailsClearly(text, text.debugDescription) }
  }
}
