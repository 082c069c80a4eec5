import ChaosKit
import Testing

/// kvd's chaos scenarios, one test case per file in `Scenarios/`, against the kvd this package builds.
@Test(arguments: ScenarioCase.all(in: "Scenarios"))
func scenario(_ scenario: ScenarioCase) {
  let result = scenario.run(target: ScenarioCase.executable("kvd"))
  #expect(result.passed, Comment(rawValue: result.report))
}
