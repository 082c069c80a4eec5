// What a server names besides `ServerLaunch`, so that one import does: `ProtectionPolicy`,
// `ProtectContext`, `LaunchOutcome`, `LaunchStatus` (LaunchProtection), `ChaosProbe.declare` for
// the app's own failpoints and `FailpointRegistry.shared.evaluate` to evaluate them.
@_exported import ChaosProbe
@_exported import Failpoints
@_exported import LaunchProtection
