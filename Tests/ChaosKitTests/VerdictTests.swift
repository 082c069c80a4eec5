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

  /// The smallest R with (1 - k/n)^R ≤ 1 %, at least 2, at most 20.
  func testRoundsMakeAnIntermittentBugFailReliably() {
    XCTAssertEqual(Verdict(reproduced: 2, reruns: 3).rounds(), 5)  // (1/3)^4 = 1.2 %, (1/3)^5 = 0.4 %
    XCTAssertEqual(Verdict(reproduced: 1, reruns: 3).rounds(), 12)  // (2/3)^11 = 1.2 %, (2/3)^12 = 0.8 %
    XCTAssertEqual(Verdict(reproduced: 1, reruns: 10).rounds(), 20, "capped")
    XCTAssertEqual(Verdict(reproduced: 9, reruns: 10).rounds(), 2)
    XCTAssertEqual(Verdict(reproduced: 3, reruns: 3).rounds(), 1)
    XCTAssertEqual(Verdict(reproduced: 0, reruns: 3).rounds(), 1)
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
