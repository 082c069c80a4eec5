import Foundation
import TestSupport
import XCTest

@testable import ChaosKit

/// Issue 45: `chaos explore` lost the rule "life actions added after `protectFinished()` run at
/// once" for a day (a fault at a held action never fired, and a launch whose fault did not fire
/// was judged as a clean one). End to end, through real processes: a target that holds them
/// must be found, shrunk and written.
final class ExploreLifeActionTests: XCTestCase {
  /// The reference app behind a wrapper that turns `protect_finish: immediate` into
  /// `after_life_actions`: in protect mode its life actions are then held (`protected`) until
  /// after the relaunch, as a library that holds the actions added after `protectFinished()`
  /// would show; in normal mode nothing changes.
  func testALibraryThatHoldsLifeActionsAddedAfterProtectFinishedIsFound() throws {
    let folder = TemporaryDirectory("explore-life-after-protect")
    let wrapper = folder.file("holds-after-protect.sh")
    try """
    #!/bin/sh
    CHAOS_APP=$(printf '%s' "$CHAOS_APP" | sed 's/"protect_finish":"immediate"/"protect_finish":"after_life_actions"/')
    export CHAOS_APP
    # A copy of the app beside the wrapper: a `new_binary` copy of the wrapper is a new binary too.
    here=$(dirname "$0")
    if [ ! -x "$here/app" ]; then
      cp '\(ScenarioCase.executable("chaos-target"))' "$here/.app.$$" && mv "$here/.app.$$" "$here/app"
    fi
    exec "$here/app"
    """.write(toFile: wrapper, atomically: true, encoding: .utf8)
    chmod(wrapper, 0o755)
    var options = Explorer.Options(target: wrapper)
    options.seed = 1
    options.sequences = 40
    options.jobs = 1
    options.outDirectory = folder.file("out")
    let report = try Explorer(options: options).run()
    let failure = try XCTUnwrap(report.failure, "\(report.sequences) sequences explored, no divergence")
    XCTAssertTrue(failure.confirmed, failure.reruns.joined(separator: "; "))
    XCTAssertLessThanOrEqual(failure.shrunkLaunches, 3, failure.scenarioText)
    let written = try ScenarioLoader.load(path: failure.path)
    guard case .object(let app)? = written.app else { return XCTFail("no app in \(failure.scenarioText)") }
    XCTAssertEqual(app["protect_finish"], .string("immediate"))
    // It diverged in a launch relaunched after protectFinished() (its actions were held, or
    // a fault at one fired late or not at all).
    let divergent = try XCTUnwrap(failure.divergentLaunch)
    XCTAssertEqual(written.launches[divergent - 1].expect.relaunched, true, failure.scenarioText)
    // The written scenario is the rule itself: the unwrapped app passes it.
    var runOptions = RunOptions()
    runOptions.artifactsDirectory = folder.file("artifacts")
    runOptions.targetOverride = ScenarioCase.executable("chaos-target")
    XCTAssertEqual(ScenarioRunner(options: runOptions).run(written).status, .passed)
  }
}
