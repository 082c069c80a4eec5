import ChaosKit
import Testing

/// hbkv's chaos scenarios, one test case per file in `Scenarios/`, against the hbkv this package builds.
@Test(arguments: ScenarioCase.all(in: "Scenarios"))
func scenario(_ scenario: ScenarioCase) {
  let result = scenario.run(target: ScenarioCase.executable("hbkv"))
  #expect(result.passed, Comment(rawValue: result.report))
}
