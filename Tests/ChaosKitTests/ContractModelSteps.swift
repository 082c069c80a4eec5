@testable import ChaosKit

/// Steps through the contract model, for its tests: a run of steps, a fault, a clean launch.
protocol ContractModelSteps {}

extension ContractModelSteps {
  /// The model's predictions for `steps`, from a fresh state.
  func run(_ steps: [ExplorationStep], _ app: ExplorationApp) -> [Prediction] {
    var model = ContractModel()
    return steps.map { model.step($0, app: app) }
  }

  /// A launch with `kind` injected at `point`, the state edited first by `edit`.
  func fault(_ point: String, _ kind: FaultKind, edit: StateEdit? = nil) -> ExplorationStep {
    ExplorationStep(edit: edit, action: .fault(point: point, kind: kind))
  }

  /// A launch without a fault.
  var clean: ExplorationStep { ExplorationStep(edit: nil, action: .clean) }
}
