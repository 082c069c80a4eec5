import XCTest

@testable import ChaosKit

/// One duration grammar for scenario YAML and `chaos explore --time`.
final class DurationTextTests: XCTestCase {
  func testTheGrammar() {
    let valid: [(String, Double)] = [
      ("10s", 10), ("500ms", 0.5), ("2m", 120), ("1h", 3600), ("1.5h", 5400), ("2.5", 2.5), ("0", 0), ("0s", 0),
      ("-3s", -3),
    ]
    for (text, seconds) in valid { XCTAssertEqual(DurationText.seconds(text), seconds, text) }
    for text in ["", "s", "ms", "soon", "10 s", "10sec", "1d", "inf", "nan", "infs", "1e999s", "h1"] {
      XCTAssertNil(DurationText.seconds(text), text)
    }
  }

  /// YAML takes `h` now, within its limit of an hour; the command line's `--time` has no limit.
  func testYAMLAndTheCommandLineReadTheSameUnits() throws {
    let scenario = try ScenarioLoader.parse("name: x\ntimeout: 1h\nlaunches:\n  - expect: {}\n", path: "s.yaml")
    XCTAssertEqual(scenario.timeoutSeconds, 3600)
    XCTAssertThrowsError(
      try ScenarioLoader.parse("name: x\ntimeout: 2h\nlaunches:\n  - expect: {}\n", path: "s.yaml")
    ) { error in
      XCTAssertTrue("\(error)".contains("bad duration '2h' (expected e.g. 10s, 500ms, 2m, 1h;"), "\(error)")
    }
  }
}
