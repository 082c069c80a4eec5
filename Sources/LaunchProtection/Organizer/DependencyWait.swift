import Failpoints

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// A launch's wait for a dependency, as observers are told of it
/// (``LaunchObservation/dependencyWait``, beside the event, so that ``LaunchProtectionEvent``,
/// which apps `switch` over, keeps its cases).
public struct DependencyWait: Sendable, Equatable, CustomStringConvertible {
  /// Where the wait is. A struct, not an enum, so that stages can be added without breaking a
  /// `switch`: compare with the static values.
  public struct Stage: Sendable, Hashable, CustomStringConvertible {
    /// `waiting`, `answered` or `failed`.
    public let name: String

    /// Every stage of this version, for the library's own `switch`es: the only initializer
    /// takes one, so a new stage fails to compile until each `switch` over ``known`` handles it.
    @usableFromInline package enum Known: String, CaseIterable, Sendable {
      case waiting, answered, failed
    }

    @usableFromInline init(_ known: Known) { self.name = known.rawValue }

    /// This stage as the enum the library switches over; every stage is one (see ``Known``).
    package var known: Known { Known(rawValue: name)! }

    /// The wait began: the launch deadline is paused.
    @_alwaysEmitIntoClient
    public static var waiting: Stage { Stage(.waiting) }
    /// The wait's body returned: the dependency answered, the deadline runs again.
    @_alwaysEmitIntoClient
    public static var answered: Stage { Stage(.answered) }
    /// The wait's body threw: the dependency did not answer. The launch stays held by it (not
    /// counted should it end now) until a later wait for it answers.
    @_alwaysEmitIntoClient
    public static var failed: Stage { Stage(.failed) }

    /// The stage's name.
    public var description: String { name }
  }

  /// The dependency's name, as given to `waitForDependency`.
  public var dependency: String
  /// Where the wait is.
  public var stage: Stage
  /// How long the body ran; nil when the wait began.
  public var waited: Duration?

  /// Creates a wait event (the organizer makes them; apps may for their own tests).
  public init(dependency: String, stage: Stage, waited: Duration? = nil) {
    self.dependency = dependency
    self.stage = stage
    self.waited = waited
  }

  /// `waiting for postgres`, `postgres answered after 1.2 seconds`, `postgres did not answer
  /// (waited 3.0 seconds)`.
  public var description: String {
    let after = waited.map { "\($0)" } ?? ""
    switch stage.known {
    case .answered: return "\(dependency) answered after \(after)"
    case .failed: return "\(dependency) did not answer (waited \(after)); not a launch crash"
    case .waiting: return "waiting for \(dependency); not charged to the launch deadline"
    }
  }
}

extension LaunchOrganizer {
  /// Runs `body`, the part of the launch that waits for a dependency (connecting to a
  /// database, fetching configuration), and returns what it returns.
  ///
  /// While it runs, the launch deadline is paused, ``status`` says `waiting for <name>`, and
  /// this launch's sentinel durably names the dependency: should the process die, exit or be
  /// stopped now, the next launch records a ``DependencyOutage`` instead of counting a launch
  /// crash, so a dependency that is down never leads to a repair. If `body` throws, the
  /// launch stays held by the dependency (end the process, or wait again); once a wait for it
  /// returns, the launch goes on as usual and a crash counts again.
  ///
  /// Outside a launch (before it starts, after it finished) it just runs `body`. Safe from any
  /// thread, also at once: waits for several dependencies are each recorded.
  ///
  /// ```swift
  /// let database = try organizer.waitForDependency("postgres") { try connectWithRetries() }
  /// ```
  ///
  /// - Parameters:
  ///   - name: the dependency, as status, events and metrics name it (`postgres`).
  ///   - body: the wait.
  /// - Returns: what `body` returned.
  /// - Throws: what `body` threw (typed: a `throws(MyError)` body throws `MyError`).
  @discardableResult
  public func waitForDependency<T, Failure: Error>(_ name: String, _ body: () throws(Failure) -> T) throws(Failure)
    -> T
  {
    let dependency = LaunchState.dependencyName(name)
    let started = MonotonicClock.nanoseconds()
    let waiting = beginDependencyWait(dependency)
    do {
      let value = try body()
      if waiting { endDependencyWait(dependency, answered: true, since: started) }
      return value
    } catch {
      if waiting { endDependencyWait(dependency, answered: false, since: started) }
      throw error
    }
  }

  /// The async form of ``waitForDependency(_:_:)``: `body` runs in the caller's
  /// isolation; the sentinel's durable writes run off the cooperative pool. Safe from any task.
  ///
  /// ```swift
  /// let client = try await organizer.waitForDependency("postgres") { try await connect(config) }
  /// ```
  ///
  /// - Parameters:
  ///   - name: the dependency, as status, events and metrics name it (`postgres`).
  ///   - isolation: the caller's isolation, where `body` runs.
  ///   - body: the wait.
  /// - Returns: what `body` returned.
  /// - Throws: what `body` threw.
  @discardableResult
  @_alwaysEmitIntoClient
  public func waitForDependency<T, Failure: Error>(
    _ name: String, isolation: isolated (any Actor)? = #isolation, _ body: () async throws(Failure) -> T
  ) async throws(Failure) -> T {
    let dependency = LaunchState.dependencyName(name)
    let started = MonotonicClock.nanoseconds()
    let waiting = await offPool { [self] in beginDependencyWait(dependency) }
    do {
      let value = try await body()
      if waiting { await offPool { [self] in endDependencyWait(dependency, answered: true, since: started) } }
      return value
    } catch {
      if waiting { await offPool { [self] in endDependencyWait(dependency, answered: false, since: started) } }
      throw error
    }
  }

  /// The wait begins: the deadline paused, the dependency named in the sentinel (durably)
  /// and in the status. False outside a launch, where the wait means nothing.
  @usableFromInline
  func beginDependencyWait(_ dependency: String) -> Bool {
    let launchID: String? = inner.withLock { inner in
      guard inner.mode.isLaunching, !inner.hung, let record = inner.record else { return nil }
      inner.waits.append(dependency)
      return record.launchID
    }
    guard let launchID else { return false }
    deadline?.pause()
    persistWaitingFor(launchID: launchID)
    SystemdNotify.send("STATUS=waiting for \(dependency)")
    emit(DependencyWait(dependency: dependency, stage: .waiting))
    return true
  }

  /// The wait ends. Answered: the dependency is no longer awaited. Failed: it stays named
  /// (the launch is held by it) until a wait for it answers. The deadline runs again once
  /// nothing is awaited.
  @usableFromInline
  func endDependencyWait(_ dependency: String, answered: Bool, since started: UInt64) {
    let (launchID, awaited): (String?, Bool) = inner.withLock { inner in
      if let index = inner.waits.firstIndex(of: dependency) { inner.waits.remove(at: index) }
      if answered {
        inner.failedDependencies.removeAll { $0 == dependency }
      } else if !inner.failedDependencies.contains(dependency) {
        inner.failedDependencies.append(dependency)
      }
      return (inner.record?.launchID, !inner.awaitedDependencies.isEmpty)
    }
    if let launchID { persistWaitingFor(launchID: launchID) }
    if !awaited { deadline?.resume() }
    let waited = Duration.nanoseconds(Int64(MonotonicClock.nanoseconds() - started))
    emit(DependencyWait(dependency: dependency, stage: answered ? .answered : .failed, waited: waited))
  }

  /// Writes the first dependency the launch is held by (or none) into its sentinel, when it
  /// changed. Serialised by the state store's lock; the value is read again under it, so two
  /// waits ending together leave the last word to the later write.
  private func persistWaitingFor(launchID: String) {
    let (_, problems) = stateStore.update { [self] state in
      guard let index = state.launchesInProgress.firstIndex(where: { $0.launchID == launchID }) else { return }
      let current = inner.withLock { $0.awaitedDependencies.first }
      if state.launchesInProgress[index].waitingFor != current {
        state.launchesInProgress[index].waitingFor = current
      }
    }
    for problem in problems { emit(.stateProblem(problem)) }
  }
}

extension LaunchOrganizer.Inner {
  /// The dependencies the launch is held by: those waited for now, then those whose wait
  /// failed; each once, in order.
  var awaitedDependencies: [String] {
    var names: [String] = []
    for name in waits + failedDependencies where !names.contains(name) { names.append(name) }
    return names
  }
}

extension DependencyOutage {
  /// The outage history in one line, for the log of the start after it: `5 starts in a row
  /// ended waiting for postgres since 2026-11-28T14:02:03Z, the last at 2026-11-28T14:07:12Z
  /// (pid 4242); none was counted as a launch crash`. Logged at each start that found such a launch (swift-log sink), so an
  /// operator sees an outage without asking the server, which does not listen while it waits.
  public var history: String {
    let last = LaunchStatus.iso8601(decisionDate)
    guard launchesInARow > 1 else {
      return "1 start ended waiting for \(dependency) at \(last) (pid \(pid)); not counted as a launch crash"
    }
    return "\(launchesInARow) starts in a row ended waiting for \(dependency) since \(LaunchStatus.iso8601(since)),"
      + " the last at \(last) (pid \(pid)); none was counted as a launch crash"
  }
}

extension LaunchDecision {
  /// Whether the start just decided found a launch that ended waiting for a dependency, so
  /// that an outage is under way: its history is ``LaunchStatus/dependencyOutage``.
  public var followsDependencyOutage: Bool { !dependencyOutages.isEmpty }
}
