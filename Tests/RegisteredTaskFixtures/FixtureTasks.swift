import LaunchTasks

/// A task registered at compile time from a module other than the test module.
public final class FixtureModuleTask: LaunchTask {
  public let name = "fixture-module-task"
  public var stage: String { "fixture-stage" }
  public init() {}
  public func run(_ context: TaskContext) {}
}

@section("launch_tasks") @used
let fixtureModuleTaskRegistration: TaskRegistration = (0x4C61_756E_6368_5453, { registeredTask(FixtureModuleTask()) })
