import Failpoints
import XCTest

/// `FailpointAction.Code` against every code it has (issue 61): `all` is built from `Known`, so
/// it holds each code once, and every code's keyword parses back to that code.
final class FailpointCodeTests: XCTestCase {
  func testAllHoldsEveryCodeOnceInItsOrder() {
    XCTAssertEqual(FailpointAction.Code.all.map(\.known), FailpointAction.Code.Known.allCases)
    XCTAssertEqual(FailpointAction.keywords, FailpointAction.Code.Known.allCases.map(\.rawValue))
    XCTAssertEqual(Set(FailpointAction.keywords).count, FailpointAction.keywords.count)
  }

  /// Only the actions that end the process are fatal; the known list says which.
  func testFatalActions() {
    let harmless: Set<FailpointAction.Code.Known> = [.off, .print, .sleep, .delay, .returnError, .thread]
    for code in FailpointAction.Code.all where code.known != .thread {
      let arguments: [FailpointAction.Code.Known: String] = [
        .print: "(x)", .returnError: "(EIO)", .sleep: "(1)", .delay: "(1)", .exit: "(3)",
      ]
      let spec = code.name + (arguments[code.known] ?? "")
      guard let action = try? FailpointSpecParser.parseActions(spec, name: "p").terms.first?.action else {
        XCTFail("\(spec) does not parse")
        continue
      }
      XCTAssertEqual(action.code, code, spec)
      XCTAssertEqual(action.isFatal, !harmless.contains(code.known), spec)
    }
  }
}
