import ChaosKit
import Testing

// ChaosKit's documented calls ("Testing your own app" and "Exploring with chaos explore").
// They are built, not run: this package has no scenarios and no daemon of its own.

// relative to your package root
@Test(.disabled("built for its calls only"), arguments: ScenarioCase.all(in: "Scenarios"))
func scenario(_ scenario: ScenarioCase) {
  let result = scenario.run(target: ScenarioCase.executable("mydaemon"))
  #expect(result.passed, Comment(rawValue: result.report))
}

@Test(.disabled("built for its calls only"))
func explore() throws {
  var options = Explorer.Options(target: ScenarioCase.executable("kvd"))
  options.sequences = 16
  let report = try Explorer(options: options).run()
  #expect(report.failure == nil)
}

// ScenarioFailure.Kind became a growable struct (issue 53): 0.2.0's comparisons still compile.
@Test(.disabled("built for its calls only"), arguments: ScenarioCase.all(in: "Scenarios"))
func failureKinds(_ scenario: ScenarioCase) {
  let result = scenario.run(target: ScenarioCase.executable("mydaemon"))
  let kinds = result.failures.map(\.kind)
  #expect(!kinds.contains(.count) && !kinds.contains { $0.rawValue == "stderr_lacks" })
  #expect(ScenarioFailure.Kind.allCases.contains(.outcome))
}
