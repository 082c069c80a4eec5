import Foundation
import TestSupport
import XCTest

@testable import ChaosKit

/// The report's reachability lines (issue 55): each rule of Explore.md's table with the
/// launches that reached it, or why none did, so "the rule holds" is told from "never tried".
final class ExploreReachabilityTests: XCTestCase, ContractModelSteps {
  /// Each launch is credited with the rules it reached, judged from the model before it.
  func testLaunchesReachTheRulesTheyExercise() {
    let app = ExplorationApp(threshold: 1, levels: [], protectFinishes: true, lifeActions: ["serve"])
    let steps = [
      fault("task.ui", .segv), ExplorationStep(edit: .reboot, action: .clean), fault("task.ui", .segv),
      fault("protect.begin", .abort), ExplorationStep(edit: nil, action: .sigterm(point: "task.ui")),
      ExplorationStep(edit: nil, action: .storageError),
    ]
    var model = ContractModel()
    var reached: [[ContractRule]] = []
    for step in steps {
      let before = model
      let prediction = model.step(step, app: app)
      reached.append(ContractRule.reached(by: step, before: before, prediction: prediction, app: app))
    }
    XCTAssertEqual(reached[0], [.deathBeforeFinish])
    XCTAssertEqual(reached[1], [.reboot, .lifeActions])
    XCTAssertEqual(reached[3], [.deathBeforeFinish, .crashInProtect])
    XCTAssertEqual(reached[4], [.exhaustedLevels, .stop, .crashInProtect], "a threshold policy's one level, again")
    XCTAssertTrue(reached[5].contains(.failedWrite))
  }

  /// Why none: what the target cannot offer is named, anything else is "explore longer".
  func testWhyNoneNamesWhatTheTargetLacks() {
    var declared = ExplorationApp(threshold: 2, levels: [], protectFinishes: false, lifeActions: [])
    declared.declared = true
    declared.daemon = true
    let generator = SequenceGenerator(declared: ["kv.open", "kv.request"], declaredApp: declared)
    XCTAssertEqual(
      ContractRule.crashInProtect.whyNone(generator: generator, sequences: 5),
      "no failpoint in the repair and no relaunch after it: a repair that dies was never generated")
    XCTAssertEqual(
      ContractRule.deadline.whyNone(generator: generator, sequences: 5), "the target declares no launch deadline")
    XCTAssertTrue(ContractRule.lifeActions.whyNone(generator: generator, sequences: 5).contains("its own"))
    XCTAssertTrue(ContractRule.crashAfterFinish.whyNone(generator: generator, sequences: 5).contains("--workload"))
    let reference = SequenceGenerator(declared: ["task.ui", "protect.begin", "life.*"])
    XCTAssertEqual(
      ContractRule.reboot.whyNone(generator: reference, sequences: 7), "none drawn in 7 sequences: explore longer")
  }

  /// A run reports every rule, and a reference-app run of a few dozen sequences reaches each.
  func testAReferenceAppRunReachesEveryRule() throws {
    let folder = TemporaryDirectory("explore-reach")
    var options = Explorer.Options(target: ScenarioCase.executable("chaos-target"))
    options.sequences = 60
    options.jobs = 2
    options.outDirectory = folder.file("out")
    let report = try Explorer(options: options).run()
    XCTAssertNil(report.failure?.firstDifference)
    XCTAssertEqual(report.ruleReach.map(\.rule), ContractRule.allCases.map(\.rawValue))
    for reach in report.ruleReach {
      XCTAssertGreaterThan(reach.launches, 0, "\(reach.rule): \(reach.whyNone ?? "")")
    }
  }
}
