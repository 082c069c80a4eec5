import Foundation
import Synchronization

/// Judges each launch of a running sequence by what happened in it (a `LaunchJudge`): a launch
/// whose injected failpoint did not fire is predicted as a launch without that fault, still
/// injected (a request
/// handler nothing requested, a branch not taken), one whose failpoint fired after
/// `launching_finished` as a fault after the launch. Where the target declares a phase the
/// model still uses it; the judged sequence is what the run showed, and what is written.
final class Judgement: Sendable {
  private struct State {
    var sequence: ExplorationSequence
    var notReached: [String] = []
  }

  private let state: Mutex<State>

  /// Judges `sequence` as it runs, afresh: what an earlier run showed is forgotten.
  init(_ sequence: ExplorationSequence) {
    var fresh = sequence
    for index in fresh.steps.indices {
      fresh.steps[index].reached = true
      fresh.steps[index].firedAfterLaunch = false
      fresh.steps[index].stopUnseen = false
    }
    state = Mutex(State(sequence: fresh))
  }

  /// The sequence as judged so far: unreached faults marked, late ones moved after the launch.
  var sequence: ExplorationSequence { state.withLock { $0.sequence } }

  /// The failpoints the model expected to fire in a launch that did not, once per such launch.
  var notReached: [String] { state.withLock { $0.notReached } }

  /// The judge to give the runner.
  var judge: LaunchJudge {
    LaunchJudge(
      setup: { [self] launch in setup(launch) },
      expect: { [self] launch, events, signalledAt in decide(launch, events, signalledAt: signalledAt) })
  }

  /// A reboot or a reused pid needs the dead launch the sequence was generated with; when that
  /// launch's fault was not reached, the edit goes too.
  private func setup(_ launch: Int) -> [SetupAction]? {
    state.withLock { state -> [SetupAction]? in
      let index = launch - 1
      guard state.sequence.steps.indices.contains(index) else { return nil }
      let step = state.sequence.steps[index]
      guard step.edit == .reboot || step.edit == .reusedPid else { return nil }
      var model = ContractModel()
      for earlier in state.sequence.steps[..<index] { _ = model.step(earlier, app: state.sequence.app) }
      guard !model.deadSentinel else { return nil }
      state.sequence.steps[index].edit = nil
      return []
    }
  }

  private func decide(_ launch: Int, _ events: [[TargetEvent]], signalledAt: [UInt64?]) -> Expectation? {
    state.withLock { state -> Expectation? in
      let index = launch - 1
      guard state.sequence.steps.indices.contains(index) else { return nil }
      let step = state.sequence.steps[index]
      if let point = step.injectedPoint, !events.isEmpty {
        let firings = events.map { Self.firing(of: point, in: $0) }
        let required =
          state.sequence.predictions[index].fired == point
          && ContractModel.mustFire(point, app: state.sequence.app)
        if firings.allSatisfy({ $0 == nil }), !required {
          // Counted where the model expected it to fire (not, say, a repair's point in a normal launch).
          if state.sequence.predictions[index].fired == point { state.notReached.append(point) }
          state.sequence.steps[index].reached = false
        } else if firings == [.afterLaunch] {
          state.sequence.steps[index].firedAfterLaunch = true
        }
      }
      if case .sigterm(let point) = step.action, events.count == 1 {
        state.sequence.steps[index].stopUnseen = Self.stopUnseen(
          at: point, in: events[0], signalledAt: signalledAt.first ?? nil)
      }
      let sequence = state.sequence
      return ExplorationSequence.launch(sequence.steps[index], sequence.predictions[index], app: sequence.app).expect
    }
  }

  enum Firing: Equatable { case duringLaunch, afterLaunch }

  /// Whether a stop sent at `point` reached the process where the organizer could not see it,
  /// as the events show (the organizer recorded no `stop_requested`):
  /// - the organizer adopted a SIGTERM owner made during the launch only after the failpoint
  ///   that the harness's signal waits for (LaunchProtection's documented adoption window:
  ///   the signal may have reached that owner first);
  /// - or the launch deadline had fired (`launch_hang`) before the harness sent the signal
  ///   (a loaded machine's late delivery).
  static func stopUnseen(at point: String, in events: [TargetEvent], signalledAt: UInt64?) -> Bool {
    guard !events.contains(where: { $0.name == "stop_requested" }),
      let fired = events.firstIndex(where: { $0.name == "failpoint" && $0["name"]?.string == point })
    else { return false }
    let adoptedLate = events[(fired + 1)...].contains {
      $0.name == "stop_signal" && $0["during_launch"]?.bool == true
    }
    let deadlineFirst =
      signalledAt.map { sent in
        events.contains { $0.name == "launch_hang" && $0.time <= sent }
      } ?? false
    return adoptedLate || deadlineFirst
  }

  /// Whether `point` fired in a process's events, and whether after it finished launching.
  static func firing(of point: String, in events: [TargetEvent]) -> Firing? {
    guard let fired = events.firstIndex(where: { $0.name == "failpoint" && $0["name"]?.string == point }) else {
      return nil
    }
    return events[..<fired].contains { $0.name == "launching_finished" } ? .afterLaunch : .duringLaunch
  }
}
