extension LaunchMode {
  /// The level protect mode runs, or the relaunch ran after; nil for the other modes.
  public var protectLevel: ProtectLevel? {
    switch self {
    case .protect(let level), .relaunched(after: let level): level
    default: nil
    }
  }
}
