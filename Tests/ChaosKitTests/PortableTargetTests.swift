import XCTest

@testable import ChaosKit

/// A scenario written by `chaos explore` names its target so that it runs from anywhere.
final class PortableTargetTests: XCTestCase {
  func testAProductBuiltBesideTheRunnerIsNamedBare() {
    XCTAssertEqual(Explorer.portableTarget(ScenarioCase.executable("chaos-target"), from: "/tmp/out"), "chaos-target")
  }

  func testAnythingElseIsRelativeToTheScenarioFolder() {
    XCTAssertEqual(Explorer.portableTarget("/srv/app/bin/kvd", from: "/srv/app/Scenarios/found"), "../../bin/kvd")
    XCTAssertEqual(Explorer.portableTarget("/srv/app/kvd", from: "/srv/app"), "kvd")
    XCTAssertEqual(Explorer.portableTarget("/usr/local/bin/kvd", from: "/home/me/out"), "../../../usr/local/bin/kvd")
  }
}
