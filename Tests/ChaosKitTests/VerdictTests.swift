import XCTest

@testable import ChaosKit

/// `Verdict` (issue 45): a shrunk divergence any re-run reproduces is a bug; flaky only when
/// none does; an intermittent one is written repeated so that it fails reliably.
final class VerdictTests: XCTestCase {
  func testReproducedInSomeReRunsIsABug() {
    XCTAssertEqual(Verdict(reproduced: 3, reruns: 3), .confirmed(reruns: 3))
    XCTAssertEqual(Verdict(reproduced: 2, reruns: 3), .intermittent(reproduced: 2, reruns: 3))
    XCTAssertEqual(Verdict(reproduced: 1, reruns: 3), .intermittent(reproduced: 1, reruns: 3))
    XCTAssertEqual(Verdict(reproduced: 0, reruns: 3), .flaky(reruns: 3))
    XCTAssertEqual(Verdict(reproduced: 0, reruns: 0), .flaky(reruns: 0), "nothing re-ran: not a bug")
    XCTAssertEqual(Verdict(reproduced: 2, reruns: 3).summary, "reproduced in 2 of 3")
    XCTAssertEqual(Verdict(reproduced: 0, reruns: 3).summary, "reproduced in 0 of 3")
  }

  func testExitStatuses() {
    XCTAssertEqual(Verdict(reproduced: 3, reruns: 3).exitStatus(strictFlaky: false), 1)
    XCTAssertEqual(Verdict(reproduced: 1, reruns: 3).exitStatus(strictFlaky: false), 1)
    XCTAssertEqual(Verdict(reproduced: 0, reruns: 3).exitStatus(strictFlaky: false), 3)
    XCTAssertEqual(Verdict(reproduced: 0, reruns: 3).exitStatus(strictFlaky: true), 1)
  }

  /// The smallest R with (1 - p)^R ≤ 5 %, p the 95 % lower bound of k/n, at least 2, at most 60.
  func testRoundsMakeAnIntermittentBugFailReliably() {
    XCTAssertEqual(Verdict(reproduced: 2, reruns: 3).rounds(), 11)  // p = 0.254: 0.746^11 = 4.0 %
    XCTAssertEqual(Verdict(reproduced: 1, reruns: 3).rounds(), 37)  // p = 0.078: 0.922^37 = 4.9 %
    XCTAssertEqual(Verdict(reproduced: 8, reruns: 12).rounds(), 6)  // p = 0.432: 0.568^6 = 3.4 %
    XCTAssertEqual(Verdict(reproduced: 1, reruns: 12).rounds(), 60, "capped")
    XCTAssertEqual(Verdict(reproduced: 9, reruns: 10).rounds(), 3)
    XCTAssertEqual(Verdict(reproduced: 3, reruns: 3).rounds(), 1)
    XCTAssertEqual(Verdict(reproduced: 0, reruns: 3).rounds(), 1)
    XCTAssertGreaterThanOrEqual(Verdict(reproduced: 4, reruns: 12).failureProbability(rounds: 18), 0.95)
    XCTAssertLessThan(Verdict(reproduced: 4, reruns: 12).failureProbability(rounds: 17), 0.95)
  }

  /// A launch that leaves the model's state as it found it gets `repeat:`; any other makes the
  /// whole sequence run again, round after round, the model predicting each.
  func testRepeatedSequences() throws {
    let app = ExplorationApp(threshold: 9, levels: [], protectFinishes: true, lifeActions: [])
    let sharedClean = ExplorationStep(edit: nil, action: .clean, processes: 3)
    let clean = ExplorationStep(edit: nil, action: .clean)
    let fixed = try XCTUnwrap(
      ExplorationSequence(seed: 1, app: app, steps: [clean, sharedClean]).repeated(
        divergent: 2, rounds: 5))
    XCTAssertEqual(fixed.steps.map(\.repeatCount), [1, 5])
    let scenario = fixed.scenario(target: "t", baseApp: nil, path: "s.yaml")
    XCTAssertEqual(scenario.launches.map(\.repeatCount), [1, 5])
    XCTAssertEqual(scenario.launches[1].parallel, 3)

    let crash = ExplorationStep(edit: nil, action: .fault(point: "task.ui", kind: .segv))
    let rounds = try XCTUnwrap(
      ExplorationSequence(seed: 1, app: app, steps: [crash, clean]).repeated(
        divergent: 1, rounds: 3))
    XCTAssertEqual(rounds.steps.count, 6)
    XCTAssertEqual(rounds.steps.map(\.repeatCount), [1, 1, 1, 1, 1, 1])
    XCTAssertEqual(rounds.predictions.map(\.count), [0, 1, 0, 1, 0, 1], "each round from where the last one left")
    XCTAssertNil(ExplorationSequence(seed: 1, app: app, steps: [crash]).repeated(divergent: 1, rounds: 1))
  }
}
