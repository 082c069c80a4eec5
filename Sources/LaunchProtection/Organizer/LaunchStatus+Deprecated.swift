#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// 0.2.0's mode and level fields, kept compiling: ``LaunchStatus/launchMode`` (one mode type,
/// ``LaunchMode``), ``LaunchStatus/isDegraded`` and ``LaunchStatus/protectLevel`` replace them.
// The deprecated members are emitted into the callers that still use them
// (`@_alwaysEmitIntoClient`), so that a program that does not carries none of their code.
extension LaunchStatus {
  /// The mode of the launch, as an operator reads it.
  @available(*, deprecated, message: "use LaunchMode (status.launchMode) and status.isDegraded")
  public enum Mode: String, Sendable, Equatable, CaseIterable, CustomStringConvertible {
    /// `finishLaunching` / `launch` has not been called.
    case idle
    /// The normal launch is under way.
    case normal
    /// A repair is running; the launch is held.
    case protect
    /// The held launch runs again in this process after the repair.
    case relaunched
    /// `launchingFinished()` was called.
    case finished
    /// Every level was attempted and the policy stays degraded: the repair ran, the launch is
    /// held for good (a maintenance mode until a new binary or an operator fixes it).
    case degraded

    /// The raw value (`protect`, `finished`…).
    public var description: String { rawValue }
  }

  /// The current mode.
  @available(*, deprecated, message: "use launchMode (a LaunchMode) and isDegraded")
  @_alwaysEmitIntoClient
  public var mode: Mode {
    get {
      if isDegraded { return .degraded }
      switch launchMode {
      case .idle: return .idle
      case .normal: return .normal
      case .protect: return .protect
      case .relaunched: return .relaunched
      case .finished: return .finished
      }
    }
    set {
      isDegraded = newValue == .degraded
      let level = protectLevel ?? ProtectLevel(number: 0, name: "", minimumCrashes: 0)
      switch newValue {
      case .idle: launchMode = .idle
      case .normal: launchMode = .normal
      case .protect, .degraded: launchMode = .protect(level)
      case .relaunched: launchMode = .relaunched(after: level)
      case .finished: launchMode = .finished
      }
    }
  }

  /// The number of the protect level this launch attempted; nil for a launch that did not protect.
  @available(*, deprecated, message: "use protectLevel?.number")
  @_alwaysEmitIntoClient
  public var level: Int? {
    get { protectLevel?.number }
    set {
      protectLevel = newValue.map {
        ProtectLevel(number: $0, name: protectLevel?.name ?? "", minimumCrashes: protectLevel?.minimumCrashes ?? 0)
      }
    }
  }

  /// The name of that level (`quarantine-data`), nil with it.
  @available(*, deprecated, message: "use protectLevel?.name")
  @_alwaysEmitIntoClient
  public var levelName: String? {
    get { protectLevel?.name }
    set { protectLevel?.name = newValue ?? "" }
  }

  /// Creates a status from 0.2.0's mode and level fields.
  @available(
    *, deprecated,
    message: "use init(launchMode:isDegraded:protectLevel:count:lastCause:since:startedAt:readyWhenDegraded:)"
  )
  @_alwaysEmitIntoClient
  public init(
    mode: Mode, level: Int? = nil, levelName: String? = nil, count: Int = 0, lastCause: String? = nil,
    since: Date, startedAt: Date? = nil, readyWhenDegraded: Bool = false
  ) {
    self.init(
      launchMode: .idle, count: count, lastCause: lastCause, since: since, startedAt: startedAt,
      readyWhenDegraded: readyWhenDegraded)
    self.level = level
    self.levelName = levelName
    self.mode = mode
  }
}
