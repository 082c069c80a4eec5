/// Which part of a launch runs: the one phase vocabulary of the state file, the launch
/// deadline and its event.
public enum LaunchPhase: String, Codable, Sendable {
  /// Running the normal launch.
  case launching
  /// Running a protect-mode repair.
  case protecting
  /// Running the launch again after `protectFinished()`.
  case relaunching

  /// The phase as logs and the `launch_hang` event name it: `launch`, `repair`, `relaunch`.
  public var step: String {
    switch self {
    case .launching: "launch"
    case .protecting: "repair"
    case .relaunching: "relaunch"
    }
  }

  /// The phase whose ``step`` is `step`; nil for any other word.
  public init?(step: String) {
    guard let phase = [LaunchPhase.launching, .protecting, .relaunching].first(where: { $0.step == step }) else {
      return nil
    }
    self = phase
  }
}
