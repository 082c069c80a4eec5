import ChaosKit
import Testing

/// Every scenario under `Scenarios/`, one Swift Testing case per file, through the same public
/// API a user's test target uses (`ScenarioCase`). A new scenario file is picked up without
/// editing Swift code; a failure names the file, the launch, what was expected and what was seen.
@Suite("Scenarios")
struct ScenarioSuiteTests {
  static let cases = ScenarioCase.all(in: "Scenarios")

  @Test("scenario", arguments: cases)
  func scenario(_ scenario: ScenarioCase) {
    // nil target: each scenario's own `target:` (chaos-target, resolved next to this bundle).
    let result = scenario.run(target: nil)
    #expect(result.passed, Comment(rawValue: result.report))
  }

  @Test("the suite keeps at least 40 scenarios, each stating its rule")
  func suiteShape() throws {
    #expect(Self.cases.count >= 40)
    for scenarioCase in Self.cases {
      let scenario = try scenarioCase.scenario.get()
      #expect(!(scenario.description?.isEmpty ?? true), "\(scenario.path): every scenario states its rule")
    }
  }
}
