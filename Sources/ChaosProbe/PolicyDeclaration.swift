import LaunchProtection

/// Protocol v2: what the target promised, carried by every `launch` event so that a harness
/// can judge a target it did not write (`chaos explore` predicts from it).
struct PolicyDeclaration: Sendable {
  /// Counts at which a custom policy's closure is sampled (a pure function of the count).
  static let sampledCounts = 0...64

  let deadlineMilliseconds: Int?
  let relaunches: Bool
  let ignoresTermination: Bool
  let ignoresReboots: Bool
  let resetsOnNewBinary: Bool

  init(organizer: LaunchOrganizer.Configuration, options: ChaosProbe.Options) {
    deadlineMilliseconds = organizer.launchDeadline.map { Int($0.wholeMicroseconds / 1000) }
    relaunches = options.relaunchesAfterRepair
    ignoresTermination = organizer.ignoreTermination
    ignoresReboots = organizer.ignoreReboots
    resetsOnNewBinary = organizer.resetOnNewBinary
  }

  /// The `policy` object of the `launch` event (Docs/Protocol.md, protocol 2).
  func fields(_ policy: ProtectionPolicy) -> [String: any Sendable] {
    var fields: [String: any Sendable] = [
      "relaunches": relaunches, "ignore_termination": ignoresTermination, "ignore_reboots": ignoresReboots,
      "reset_on_new_binary": resetsOnNewBinary, "exhausted": policy.exhausted.description,
    ]
    if let deadlineMilliseconds { fields["deadline_ms"] = deadlineMilliseconds }
    if policy.isCustom {
      fields["kind"] = "custom"
      fields["protects_at"] = Self.sampledCounts.filter { policy.protects(count: $0) }
    } else {
      fields["kind"] = "ladder"
      fields["levels"] = policy.levels.map { ["name": $0.name, "at": $0.minimumCrashes] as [String: any Sendable] }
    }
    return fields
  }
}
