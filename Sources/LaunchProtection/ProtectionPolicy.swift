/// One rung of the repair ladder: from `minimumCrashes` consecutive launch crashes on,
/// protect mode runs this level's repair.
public struct ProtectLevel: Sendable, Equatable, Hashable {
  /// 1-based position on the ladder.
  public var number: Int
  /// A name for logs and events, e.g. `clear-caches`.
  public var name: String
  /// The consecutive-crash count at which this level starts.
  public var minimumCrashes: Int

  /// Creates a level.
  public init(number: Int, name: String, minimumCrashes: Int) {
    self.number = number
    self.name = name
    self.minimumCrashes = minimumCrashes
  }
}

/// Decides from the consecutive-crash count whether, and at which level, to protect.
///
/// Escalation (as RescueParty and Chromium do it): the level being attempted is persisted
/// before its repair runs, so when the launch dies again — inside the repair or after
/// `protectFinished()` — the next launch moves to the next level instead of looping.
/// Past the last level, the last level repeats.
public struct ProtectionPolicy: Sendable {
  /// The ladder, ordered by `minimumCrashes`.
  public let levels: [ProtectLevel]
  private let decide: (@Sendable (Int) -> Bool)?

  /// One level: protect once `count >= threshold` (the seed's `count > threshold - 1`).
  public static func threshold(_ threshold: Int) -> ProtectionPolicy {
    ProtectionPolicy(levels: [ProtectLevel(number: 1, name: "protect", minimumCrashes: max(1, threshold))], decide: nil)
  }

  /// Ordered levels, e.g. clear caches at 2, reset config at 4, wipe data at 6.
  /// `minimumCrashes` values must increase; levels are renumbered 1... in that order.
  public static func escalation(_ levels: [(name: String, minimumCrashes: Int)]) -> ProtectionPolicy {
    let sorted = levels.sorted { $0.minimumCrashes < $1.minimumCrashes }
    return ProtectionPolicy(
      levels: sorted.enumerated().map {
        ProtectLevel(number: $0.offset + 1, name: $0.element.name, minimumCrashes: max(1, $0.element.minimumCrashes))
      },
      decide: nil)
  }

  /// The seed's form: the app's closure decides; a `true` answer is level 1 (escalating to
  /// level 2, 3... while repairs keep dying).
  public static func custom(_ shouldProtect: @escaping @Sendable (Int) -> Bool) -> ProtectionPolicy {
    ProtectionPolicy(levels: [], decide: shouldProtect)
  }

  /// The level for this launch, or nil for normal mode.
  /// - Parameters:
  ///   - count: consecutive launch crashes, including the one just detected.
  ///   - previousAttempt: the level attempted by the launch that just died, if it was a repair.
  func level(count: Int, previousAttempt: Int?) -> ProtectLevel? {
    if let decide {
      guard decide(count) else { return nil }
      let number = min(previousAttempt ?? 0, LaunchState.maximumLevel - 1) + 1
      return ProtectLevel(number: number, name: "protect", minimumCrashes: 0)
    }
    guard let byCount = levels.last(where: { count >= $0.minimumCrashes }) else { return nil }
    guard let previousAttempt, let last = levels.last else { return byCount }
    let escalated = levels.first { $0.number == previousAttempt + 1 } ?? last
    return escalated.number > byCount.number ? escalated : byCount
  }
}
