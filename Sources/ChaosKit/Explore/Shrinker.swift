import Foundation

/// Shrinks a failing sequence: drops launches, then simplifies each, keeping a step only while the failure persists.
enum Shrinker {
  static func shrink(
    _ sequence: ExplorationSequence, budget: Int, fails: (ExplorationSequence) -> Bool
  ) -> ExplorationSequence {
    var current = sequence
    var tries = 0
    func attempt(_ candidate: ExplorationSequence) -> Bool {
      guard candidate != current, tries < budget, candidate.isPredictable else { return false }
      tries += 1
      if fails(candidate) {
        current = candidate
        return true
      }
      return false
    }
    var changed = true
    while changed && tries < budget {
      changed = false
      // Drop launches, the latest first (later launches rarely explain earlier ones).
      var index = current.steps.count - 1
      while index >= 0 && current.steps.count > 1 {
        var candidate = current
        candidate.steps.remove(at: index)
        if attempt(candidate) { changed = true }
        index = min(index - 1, current.steps.count - 1)
      }
      for index in current.steps.indices {
        for simpler in simplifications(of: current.steps[index]) {
          var candidate = current
          candidate.steps[index] = simpler
          if attempt(candidate) {
            changed = true
            break
          }
        }
      }
      for app in simplifications(of: current.app) {
        var candidate = current
        candidate.app = app
        if attempt(candidate) { changed = true }
      }
    }
    return current
  }

  static func simplifications(of step: ExplorationStep) -> [ExplorationStep] {
    var result: [ExplorationStep] = []
    func with(_ change: (inout ExplorationStep) -> Void) {
      var simpler = step
      change(&simpler)
      result.append(simpler)
    }
    if step.processes > 1 { with { $0.processes = 1 } }
    if step.edit != nil { with { $0.edit = nil } }
    if step.skip > 0 { with { $0.skip = 0 } }
    switch step.action {
    case .fault(let point, let kind):
      if kind != .segv && kind != .kill { with { $0.action = .fault(point: point, kind: .segv) } }
      with {
        $0.action = .clean
        $0.skip = 0
      }
    case .sigterm, .storageError:
      with { $0.action = .clean }
    case .clean:
      break
    }
    return result
  }

  static func simplifications(of app: ExplorationApp) -> [ExplorationApp] {
    var result: [ExplorationApp] = []
    if app.declared { return result }  // the target's own policy: not ours to simplify
    func with(_ change: (inout ExplorationApp) -> Void) {
      var candidate = app
      change(&candidate)
      result.append(candidate)
    }
    if app.exhaustedExitStatus != nil { with { $0.exhaustedExitStatus = nil } }
    if app.staysDegraded { with { $0.staysDegraded = false } }
    if app.lifeActionsHeld { with { $0.lifeActionsHeld = false } }
    if app.lifeActions.count > 1 { with { $0.lifeActions.removeLast() } }
    if app.deadlineSeconds != nil { with { $0.deadlineSeconds = nil } }
    if !app.protectFinishes {
      with {
        $0.protectFinishes = true
        $0.lifeActionsHeld = false
      }
    }
    if app.levels.count > 1 {
      with { $0.levels.removeLast() }
    } else if !app.levels.isEmpty {
      with {
        $0.threshold = app.levels[0].at
        $0.levels = []
      }
    }
    if app.levels.isEmpty && app.threshold > 1 { with { $0.threshold -= 1 } }
    return result
  }
}
