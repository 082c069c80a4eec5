/// One thing the organizer tells its observers (``LaunchOrganizer/observe(_:)``): a transition
/// of the launch, who received SIGTERM during it, or a wait for a dependency. Exactly one of
/// the properties is set.
///
/// A struct, not an enum, so that a later version can tell more (a new property) without
/// breaking an observer's `switch` — swift-service-lifecycle wraps its codes the same way.
/// Read the properties you know and ignore an observation that sets none of them.
public struct LaunchObservation: Sendable, CustomStringConvertible {
  /// A transition of the launch (``LaunchProtectionEvent``).
  public var event: LaunchProtectionEvent?
  /// SIGTERM's owner during the launch, when it is not the usual case (``StopSignalReport``).
  public var stopSignal: StopSignalReport?
  /// A wait for a dependency began, was answered, or failed (``DependencyWait``).
  public var dependencyWait: DependencyWait?

  init(event: LaunchProtectionEvent? = nil, stopSignal: StopSignalReport? = nil, dependencyWait: DependencyWait? = nil)
  {
    self.event = event
    self.stopSignal = stopSignal
    self.dependencyWait = dependencyWait
  }

  /// The one line a log shows for it.
  public var description: String {
    if let event { return event.description }
    if let stopSignal { return stopSignal.description }
    if let dependencyWait { return dependencyWait.description }
    return "observation"
  }
}
