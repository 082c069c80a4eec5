import Foundation

/// Shrinks a failing sequence: drops launches, then simplifies each, keeping a step only while the failure persists.
enum Shrinker {
  static func shrink(
    _ sequence: ExplorationSequence, budget: Int, fails: (ExplorationSequence) -> Bool
  ) -> ExplorationSequence {
    var current = sequence
    var tries = 0
    func attempt(_ candidate: ExplorationSequence) -> Bool {
      guard candidate != current, tries < budget else { return false }
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
    if step.edit != nil { result.append(ExplorationStep(edit: nil, action: step.action)) }
    switch step.action {
    case .fault(let point, let kind):
      if kind != .segv && kind != .kill {
        result.append(ExplorationStep(edit: step.edit, action: .fault(point: point, kind: .segv)))
      }
      result.append(ExplorationStep(edit: step.edit, action: .clean))
    case .sigterm, .storageError:
      result.append(ExplorationStep(edit: step.edit, action: .clean))
    case .clean:
      break
    }
    return result
  }

  static func simplifications(of app: ExplorationApp) -> [ExplorationApp] {
    var result: [ExplorationApp] = []
    if app.declared { return result }  // the target's own policy: not ours to simplify
    if app.exhaustedExitStatus != nil {
      var candidate = app
      candidate.exhaustedExitStatus = nil
      result.append(candidate)
    }
    if app.deadlineSeconds != nil {
      var candidate = app
      candidate.deadlineSeconds = nil
      result.append(candidate)
    }
    if !app.protectFinishes {
      var candidate = app
      candidate.protectFinishes = true
      result.append(candidate)
    }
    if app.levels.count > 1 {
      var candidate = app
      candidate.levels.removeLast()
      result.append(candidate)
    } else if !app.levels.isEmpty {
      var candidate = app
      candidate.threshold = app.levels[0].at
      candidate.levels = []
      result.append(candidate)
    }
    if app.levels.isEmpty && app.threshold > 1 {
      var candidate = app
      candidate.threshold -= 1
      result.append(candidate)
    }
    return result
  }
}
