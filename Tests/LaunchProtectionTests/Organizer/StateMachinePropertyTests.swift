import Failpoints
import Foundation
import Synchronization
import XCTest

@testable import LaunchProtection

/// Random sequences of launches — crashes in every phase, clean exits, SIGTERMs, repairs,
/// reboots, new binaries, failed writes and corrupt files — run through the real organizer
/// and store, each launch judged against a model of the "What counts" table (LaunchProtection's documentation). Seeded:
/// a failure names the seed and the steps, so it replays exactly.
final class StateMachinePropertyTests: XCTestCase {
  /// What happens to one launch.
  enum Outcome: CaseIterable {
    case crashInLaunch, crashInRepair, crashInRelaunch, finish, cleanExit, sigterm
  }

  /// What happens before it.
  enum Before: CaseIterable {
    case nothing, corruptFile, reboot, newBinary, failFirstWrite
  }

  struct Step: CustomStringConvertible {
    var before: Before
    var outcome: Outcome
    var description: String { "\(before)/\(outcome)" }
  }

  /// The contract, as persisted: what the next launch will find.
  struct Model {
    var count = 0
    var attemptedLevel: Int?
    /// The last launch left its sentinel and died in a way that counts.
    var pendingCrash = false

    /// Escalation ladder of the policy under test: level 1 from 2 crashes, level 2 from 4.
    static let levels = [(number: 1, at: 2), (number: 2, at: 4)]

    /// "What counts": the level by count, or the next one when the launch that died was a repair attempt.
    static func level(count: Int, previousAttempt: Int?) -> Int? {
      guard let byCount = levels.last(where: { count >= $0.at })?.number else { return nil }
      guard let previousAttempt else { return byCount }
      return max(byCount, min(previousAttempt + 1, levels.count))
    }
  }

  private static let policy = ProtectionPolicy.escalation([("clear-caches", 2), ("reset-config", 4)])

  func testRandomSequencesFollowTheContract() throws {
    for seed in UInt64(1)...150 {
      var generator = SeededGenerator(seed: seed)
      let steps = (0..<(4 + Int(generator.next() % 12))).map { _ in
        Step(
          before: generator.next() % 3 == 0 ? Before.allCases.randomElement(using: &generator)! : .nothing,
          outcome: Outcome.allCases.randomElement(using: &generator)!)
      }
      try run(steps, seed: seed)
    }
  }

  private func run(_ steps: [Step], seed: UInt64) throws {
    let launches = SimulatedLaunches()
    var model = Model()
    let statePath = launches.stateDirectory + "/launch-state.json"
    for (index, step) in steps.enumerated() {
      let context = "seed \(seed), launch \(index + 1) of \(steps.map(\.description)):"
      // Before the launch.
      var newBinary = false
      switch step.before {
      case .nothing: break
      case .corruptFile:
        if FileManager.default.fileExists(atPath: statePath) {
          try Data("{\"version\": 1, garbage".utf8).write(to: URL(fileURLWithPath: statePath))
          model = Model()  // moved aside: a first launch
        }
      case .reboot:
        launches.bootID.withLock { $0 += "+" }
        model.pendingCrash = false  // unfinished at a reboot: not counted
      case .newBinary:
        launches.executable.withLock { $0 = ($0 ?? "") + "+" }
        newBinary = true
      case .failFirstWrite:
        try launches.failpoints.configure("store.write=1*return(EIO)")
      }

      // The model's prediction.
      let persistedBefore = model
      var predicted = model
      let counted = predicted.pendingCrash
      predicted.count = min(LaunchState.maximumCount, predicted.count + (counted ? 1 : 0))
      var previousAttempt = counted ? predicted.attemptedLevel : nil
      if newBinary && FileManager.default.fileExists(atPath: statePath) {
        predicted.count = 0
        predicted.attemptedLevel = nil
        previousAttempt = nil
      }
      let level = Model.level(count: predicted.count, previousAttempt: previousAttempt)
      if let level { predicted.attemptedLevel = level }
      predicted.pendingCrash = false

      // The launch.
      var configuration = launches.configuration()
      configuration.ignoreTermination = true
      let organizer = LaunchOrganizer(configuration: configuration)
      let outcome = step.outcome
      organizer.finishLaunching(
        policy: Self.policy,
        launch: {
          switch outcome {
          case .finish: organizer.launchingFinished()
          case .cleanExit: organizer.processExiting(status: 0)
          case .sigterm: organizer.stopRequested()
          default: break
          }
        },
        protect: { _ in
          switch outcome {
          case .crashInRepair: break
          case .sigterm: organizer.stopRequested()
          default: organizer.protectFinished()
          }
        })
      // Restores the test process's SIGTERM disposition, which the organizer's handler took.
      signal(SIGTERM, SIG_DFL)
      launches.failpoints.removeAll()
      let decision = try XCTUnwrap(organizer.status.decision, context)
      XCTAssertEqual(decision.count, predicted.count, "\(context) count")
      switch (decision.mode, level) {
      case (.normal, nil): break
      case (.protect(let seen), let expected?): XCTAssertEqual(seen.number, expected, "\(context) level")
      default: XCTFail("\(context) mode \(decision.mode), expected level \(String(describing: level))")
      }

      // What the next launch will find.
      let wrote = !decision.problems.contains { $0.kind == "write_failed" }
      let reachedPhase: Bool
      switch outcome {
      case .crashInRepair: reachedPhase = level != nil
      case .crashInRelaunch: reachedPhase = level != nil
      default: reachedPhase = true
      }
      let effective: Outcome = reachedPhase ? outcome : .crashInLaunch
      switch effective {
      case .finish:
        model = predicted
        model.count = 0
        model.attemptedLevel = nil
      case .crashInLaunch, .crashInRepair, .crashInRelaunch:
        model = wrote ? predicted : persistedBefore
        if wrote { model.pendingCrash = true }
      case .cleanExit:
        model = wrote ? predicted : persistedBefore
      case .sigterm:
        // The stop was recorded in the sentinel (by the SIGTERM watcher, here called directly).
        model = wrote ? predicted : persistedBefore
      }
      let state = try launches.state() ?? LaunchState()  // no file yet: nothing persisted
      XCTAssertEqual(state.consecutiveCrashes, model.count, "\(context) persisted count")
    }
  }
}
