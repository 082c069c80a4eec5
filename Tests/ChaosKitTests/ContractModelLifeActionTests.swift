import Foundation
import XCTest

@testable import ChaosKit

/// The contract model's life actions: run twice, held and performed after a relaunch, added
/// after `protectFinished()` and run at once, and the generator reaching them.
final class ContractModelLifeActionTests: XCTestCase, ContractModelSteps {
  /// "Each action runs at most once": a key added twice runs twice in normal mode (a fault on
  /// its second pass fires, after the launch: never counted); held in protect mode with
  /// `after_life_actions`, it is performed once after the relaunch, so the second pass never comes.
  func testLifeActionsTwiceAndAfterARelaunch() {
    var app = ExplorationApp(threshold: 1, levels: [], protectFinishes: true, lifeActions: ["serve", "serve"])
    let secondPass = ExplorationStep(edit: nil, action: .fault(point: "life.serve", kind: .segv), skip: 1)
    let normal = run([secondPass, clean], app)
    XCTAssertEqual(normal.map(\.outcome), [.crash, .finished])
    XCTAssertEqual(normal.map(\.count), [0, 0], "a crash after launchingFinished is never counted")

    app.lifeActionsHeld = true
    let held = run([fault("task.ui", .segv), secondPass, clean], app)
    XCTAssertEqual(held[1].mode, .protect)
    XCTAssertEqual(held[1].relaunched, true)
    XCTAssertEqual(held[1].outcome, .finished, "a held action is performed once")
    XCTAssertNil(held[1].fired)
    let firstPass = run([fault("task.ui", .segv), fault("life.serve", .abort), clean], app)
    XCTAssertEqual(firstPass[1].outcome, .crash, "performed after the relaunch")
    XCTAssertEqual(firstPass[1].stateCount, 0, "after launching_finished")
    XCTAssertEqual(firstPass[2].count, 0)
  }

  /// "protectFinished() → leave protect mode and run the held launch"; "addLifeAction → normal
  /// mode: run now": a life action the app adds after a repair that called protectFinished()
  /// (`protect_finish: immediate`) runs at once, so a fault at it fires, after the launch.
  func testLifeActionsAddedAfterProtectFinishedRunAtOnce() throws {
    let app = ExplorationApp(threshold: 1, levels: [], protectFinishes: true, lifeActions: ["serve", "sync"])
    let predictions = run([fault("task.ui", .segv), fault("life.sync", .abort), fault("task.ui", .segv), clean], app)
    XCTAssertEqual(predictions[1].mode, .protect)
    XCTAssertEqual(predictions[1].relaunched, true)
    XCTAssertEqual(predictions[1].fired, "life.sync", "run at once, not held")
    XCTAssertEqual(predictions[1].outcome, .crash)
    XCTAssertEqual(predictions[1].stateCount, 0, "after launching_finished: not counted")
    // A clean launch after protectFinished shows each action run (never held or protected).
    XCTAssertEqual(predictions[3].mode, .protect)
    let life = try XCTUnwrap(ContractModel.lifeActionEvents(predictions[3], app: app))
    let lifeEvents = life.events.filter { $0.name == "life_action" || $0.name == "launching_finished" }
    XCTAssertEqual(lifeEvents.map(\.name), ["launching_finished", "life_action", "life_action", "launching_finished"])
    XCTAssertEqual(lifeEvents.last?.times, 1, "launchingFinished() called again changes nothing")
    XCTAssertEqual(life.events.compactMap { $0.times == nil ? $0.fields["mode"]?.string : nil }, ["ran", "ran"])
    XCTAssertEqual(life.absent.compactMap { $0.fields["mode"]?.string }, ["held", "protected"])
    // Held instead (`after_life_actions`): protected per add, performed once per key, never run at once.
    var held = app
    held.lifeActionsHeld = true
    held.lifeActions = ["serve", "serve"]
    let heldLife = try XCTUnwrap(
      ContractModel.lifeActionEvents(run([fault("task.ui", .segv), clean], held)[1], app: held))
    XCTAssertEqual(
      heldLife.events.compactMap { $0.times == nil ? $0.fields["mode"]?.string : nil },
      ["protected", "protected", "performed"])
    XCTAssertEqual(heldLife.events.last { $0.fields["mode"] == .string("performed") }?.times, 1, "performed once")
    XCTAssertEqual(heldLife.absent.compactMap { $0.fields["mode"]?.string }, ["ran"])
  }

  /// The generator proposes what the rule above needs: launches that add life actions after a
  /// repair called protectFinished(), some with a fault at one of them, which the model
  /// predicts fires; and those launches' scenarios check each action ran.
  func testGeneratorAddsLifeActionsAfterProtectFinished() {
    let generator = SequenceGenerator(declared: ["task.ui", "launch.begin", "protect.begin", "life.*"])
    var faultedAfterRepair = 0
    var checkedAfterRepair = 0
    for index in 0..<400 {
      let sequence = generator.sequence(seed: 1, index: index)
      guard sequence.app.protectFinishes, !sequence.app.lifeActionsHeld else { continue }
      let scenario = sequence.scenario(target: "t", baseApp: nil, path: "s.yaml")
      for (offset, (step, prediction)) in zip(sequence.steps, sequence.predictions).enumerated()
      where prediction.mode == .protect && prediction.relaunched == true {
        if case .fault(let point, _) = step.action, point.hasPrefix("life."), prediction.fired == point {
          faultedAfterRepair += 1
        }
        let expected = scenario.launches[offset].expect.events
        if expected.contains(where: { $0.name == "life_action" && $0.fields["mode"] == .string("ran") }) {
          checkedAfterRepair += 1
        }
      }
    }
    XCTAssertGreaterThan(faultedAfterRepair, 10, "life faults after protectFinished")
    XCTAssertGreaterThan(checkedAfterRepair, 50, "clean launches after protectFinished checking each action ran")
  }
}
