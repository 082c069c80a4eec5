import ChaosKit
import Foundation
import TestSupport
import XCTest

/// Runs every scenario under `Scenarios/` as part of `swift test`. A new scenario file is
/// picked up without editing Swift code; each failure names the file and the launch.
final class ScenarioSuiteTests: XCTestCase {
  static let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().path

  func testEveryScenarioPasses() throws {
    let files = try ScenarioDiscovery.files(in: [Self.repositoryRoot + "/Scenarios"])
    XCTAssertGreaterThanOrEqual(files.count, 40, "the suite keeps at least 40 scenarios")
    var scenarios: [Scenario] = []
    for file in files {
      do { scenarios.append(try ScenarioLoader.load(path: file)) } catch { XCTFail("\(error)") }
    }
    for scenario in scenarios {
      XCTAssertFalse(
        scenario.description?.isEmpty ?? true, "\(scenario.path): every scenario states its rule in 'description'")
    }
    let artifacts = TemporaryDirectory("scenario-suite")
    var options = RunOptions()
    options.jobs = 2
    options.referenceTarget = ChildProcess.product("chaos-target")
    options.artifactsDirectory = artifacts.path
    let results = SuiteRunner(options: options).run(scenarios) { _, _, _ in }
    XCTAssertEqual(results.count, scenarios.count)
    for result in results where !result.passed {
      XCTFail("scenario \(result.status): \(result.path)\n" + result.messages.joined(separator: "\n"))
    }
  }
}
