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
/// What happens once the last level was attempted and the launch died again is `exhausted`
/// (by default the last level repeats).
///
/// Two policies are equal when they have the same ladder and exhausted action; custom ones
/// only when they are copies of one `.custom` (closures cannot be compared).
public struct ProtectionPolicy: Sendable, Equatable {
  /// The ladder, ordered by `minimumCrashes`.
  public let levels: [ProtectLevel]
  /// What to do after the last level's repair was attempted and the launch died again.
  public private(set) var exhausted: ExhaustedLevels = .repeatLastLevel
  private let decider: Decider?

  /// A custom policy's closure, boxed so that copies of one policy compare equal.
  private final class Decider: Sendable {
    let decide: @Sendable (Int) -> Bool
    init(_ decide: @escaping @Sendable (Int) -> Bool) { self.decide = decide }
  }

  private var decide: (@Sendable (Int) -> Bool)? { decider?.decide }

  private init(levels: [ProtectLevel], decide: (@Sendable (Int) -> Bool)?) {
    self.levels = levels
    self.decider = decide.map(Decider.init)
  }

  public static func == (lhs: ProtectionPolicy, rhs: ProtectionPolicy) -> Bool {
    lhs.levels == rhs.levels && lhs.exhausted == rhs.exhausted && lhs.decider === rhs.decider
  }

  /// Whether the app's closure decides (`shouldProtect`) instead of a ladder.
  public var isCustom: Bool { decider != nil }

  /// Whether this policy protects at `count` consecutive launch crashes (the level aside).
  /// For a custom policy this calls the app's closure, which must be a pure function of the count.
  public func protects(count: Int) -> Bool {
    if let decide { return decide(count) }
    return levels.contains { count >= $0.minimumCrashes }
  }

  /// The same policy with another action for exhausted levels.
  public func whenExhausted(_ action: ExhaustedLevels) -> ProtectionPolicy {
    var policy = self
    policy.exhausted = action
    return policy
  }

  /// Whether the launch that just died was the last level's attempt (a ladder policy only: a
  /// custom closure's levels are unbounded).
  func isExhausted(previousAttempt: Int?) -> Bool {
    guard decide == nil, let previousAttempt, let last = levels.last else { return false }
    return previousAttempt >= last.number
  }

  /// One level: protect once `count >= threshold` (the same as `.custom { $0 > threshold - 1 }`).
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

  /// The closure form: the app's closure decides; a `true` answer is level 1 (escalating to
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

/// What happens when every level of the ladder was attempted and the launch still dies.
public enum ExhaustedLevels: Sendable, Equatable, CustomStringConvertible {
  /// The last level's repair runs again at every launch (the default).
  case repeatLastLevel
  /// The repair runs with `ProtectContext.exhausted` set, systemd is told `READY=1` with a
  /// degraded status, no deadline applies, and `protectFinished()` is refused: the process
  /// stays in its repair (a maintenance mode) until a new binary or an operator fixes it.
  case stayDegraded
  /// The process exits with `status` before any repair or launch code runs — name it in the
  /// unit's `RestartPreventExitStatus=` so systemd stops restarting it.
  case exit(status: Int32)

  public var description: String {
    switch self {
    case .repeatLastLevel: "repeat-last-level"
    case .stayDegraded: "stay-degraded"
    case .exit(let status): "exit(\(status))"
    }
  }
}

extension ProtectionPolicy {
  /// Ordered levels named by the app's own enum, so that a repair is chosen by a `switch` the
  /// compiler checks instead of by string (see ``ProtectContext/level(as:)``):
  /// `.escalation([Repair.clearCaches: 2, .resetConfig: 4, .wipeData: 6])`. Each level's
  /// name is its case's raw value; `minimumCrashes` values must increase.
  ///
  /// - Parameter levels: each level and the consecutive-crash count at which it starts.
  /// - Returns: a ladder policy, like the one made from names and counts.
  public static func escalation<Level: RawRepresentable>(_ levels: KeyValuePairs<Level, Int>) -> ProtectionPolicy
  where Level.RawValue == String {
    escalation(levels.map { (name: $0.key.rawValue, minimumCrashes: $0.value) })
  }
}

extension ProtectContext {
  /// The level being attempted as the app's enum (the one its policy was made from with
  /// `ProtectionPolicy.escalation([Repair.clearCaches: 2, …])`); nil when the level's
  /// name is none of its cases — a custom policy's `protect` level, say — so that an unknown
  /// level reaches `case nil`, never the most destructive repair.
  ///
  /// - Parameter type: the app's enum of levels.
  /// - Returns: the case named like the level, or nil.
  public func level<Level: RawRepresentable>(as type: Level.Type) -> Level? where Level.RawValue == String {
    Level(rawValue: level.name)
  }
}
