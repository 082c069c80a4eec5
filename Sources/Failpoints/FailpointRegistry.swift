import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// What the code at a failpoint should do after evaluating it.
public enum FailpointResult: Sendable, Equatable {
  /// Carry on as normal (nothing configured, or a non-failing action ran).
  case proceed
  /// Fail the guarded I/O with this errno (`return(errno)`).
  case fail(errno: Int32)
}

/// Reported immediately before a failpoint's action runs.
public struct FailpointTrigger: Sendable {
  /// The failpoint's name.
  public var name: String
  /// The action about to run.
  public var action: FailpointAction
  /// CLOCK_MONOTONIC nanoseconds taken just before the action (for delivery latency).
  public var monotonicNanoseconds: UInt64
}

/// Why `configure` refused a configuration. Nothing of a refused configuration is applied.
public enum FailpointConfigurationError: Error, CustomStringConvertible {
  /// The text does not follow the grammar.
  case invalidSpec(FailpointSpecError)
  /// The name is not one the program declared.
  case unknownName(String, spec: String, offset: Int, declared: [String])

  public var description: String {
    switch self {
    case .invalidSpec(let error): return error.description
    case .unknownName(let name, let spec, let offset, let declared):
      let caret = String(repeating: " ", count: offset) + "^"
      return """
        invalid failpoint spec: unknown failpoint '\(name)' (declared: \(declared.joined(separator: ", ")))
          \(spec)
          \(caret)
        """
    }
  }
}

/// The set of configured failpoints of a process.
///
/// An unconfigured registry costs one relaxed atomic load per evaluation, as in fail-rs.
public final class FailpointRegistry: Sendable {
  /// The process-wide registry the libraries evaluate.
  public static let shared = FailpointRegistry()

  private struct State {
    var points: [String: [FailpointTerm]] = [:]
    var declared: [String]?
    var generator = SeededGenerator(seed: MonotonicClock.nanoseconds())
    var observer: (@Sendable (FailpointTrigger) -> Void)?
    var threadPreparer: (@Sendable () -> Void)?
  }

  private let armed = Atomic<Int>(0)
  private let state = Mutex(State())

  /// Creates an empty registry (tests may use their own; the libraries use `shared`).
  public init() {}

  /// Whether any failpoint is configured.
  public var isArmed: Bool { armed.load(ordering: .relaxed) != 0 }

  /// Evaluates the failpoint `name`: runs its action if one fires.
  ///
  /// The name is an autoclosure so building it (`"task." + name`) costs nothing when unarmed.
  /// Returns `.fail(errno:)` when a `return(errno)` action fired (code that guards I/O fails
  /// as that I/O would), else `.proceed`; discardable, since a failpoint that only crashes,
  /// hangs or exits needs no result.
  @discardableResult
  @inline(__always)
  public func evaluate(_ name: @autoclosure () -> String) -> FailpointResult {
    if armed.load(ordering: .relaxed) == 0 { return .proceed }
    return evaluateArmed(name())
  }

  /// Applies a configuration string (`CHAOS_FAILPOINTS` syntax), adding to or replacing
  /// the named points. Either all of it applies or, on error, none of it.
  public func configure(_ text: String) throws(FailpointConfigurationError) {
    let specs: [FailpointSpec]
    do { specs = try FailpointSpecParser.parse(text) } catch { throw .invalidSpec(error) }
    try state.withLock { (state) throws(FailpointConfigurationError) in
      if let declared = state.declared {
        for spec in specs where !Self.matches(spec.name, declared) {
          let offset = Self.offset(of: spec.name + "=", in: text)
          throw .unknownName(spec.name, spec: text, offset: offset, declared: declared)
        }
      }
      for spec in specs { state.points[spec.name] = spec.terms }
      armed.store(state.points.count, ordering: .releasing)
    }
  }

  /// Sets one failpoint from its parsed spec.
  public func set(_ spec: FailpointSpec) {
    state.withLock { state in
      state.points[spec.name] = spec.terms
      armed.store(state.points.count, ordering: .releasing)
    }
  }

  /// Removes one failpoint.
  public func remove(_ name: String) {
    state.withLock { state in
      state.points[name] = nil
      armed.store(state.points.count, ordering: .releasing)
    }
  }

  /// Removes every failpoint.
  public func removeAll() {
    state.withLock { state in
      state.points.removeAll()
      armed.store(0, ordering: .releasing)
    }
  }

  /// The configured failpoints and their chains in spec syntax, sorted by name.
  public func list() -> [(name: String, actions: String)] {
    state.withLock { state in
      state.points.map { name, terms in (name, terms.map(Self.describe).joined(separator: "->")) }
        .sorted { $0.name < $1.name }
    }
  }

  /// Declares the names this program evaluates; `configure` then rejects any other.
  /// A trailing `*` declares a prefix (`task.*`).
  public func declare(_ names: [String]) {
    state.withLock { $0.declared = ($0.declared ?? []) + names }
  }

  /// Reseeds the generator behind `p%` terms, to reproduce a run.
  public func seed(_ seed: UInt64) {
    state.withLock { $0.generator = SeededGenerator(seed: seed) }
  }

  /// Called just before any action runs (e.g. to emit a `failpoint` event).
  public func setObserver(_ observer: (@Sendable (FailpointTrigger) -> Void)?) {
    state.withLock { $0.observer = observer }
  }

  /// Called first on every thread `thread(...)` starts (e.g. to give it an alternate signal stack).
  public func setThreadPreparer(_ preparer: (@Sendable () -> Void)?) {
    state.withLock { $0.threadPreparer = preparer }
  }

  /// Enables `text` until the returned scope is released or `end()`ed; for tests.
  public func scoped(_ text: String) throws(FailpointConfigurationError) -> FailpointScope {
    let names = (try? FailpointSpecParser.parse(text))?.map(\.name) ?? []
    try configure(text)
    return FailpointScope(registry: self, names: names)
  }

  private func evaluateArmed(_ name: String) -> FailpointResult {
    let fired: (FailpointAction, (@Sendable (FailpointTrigger) -> Void)?, (@Sendable () -> Void)?)? =
      state.withLock { state in
        guard var terms = state.points[name] else { return nil }
        for index in terms.indices {
          if terms[index].remaining == 0 { continue }
          if terms[index].probability < 1,
            Double.random(in: 0..<1, using: &state.generator) >= terms[index].probability
          {
            continue
          }
          if let remaining = terms[index].remaining { terms[index].remaining = remaining - 1 }
          state.points[name] = terms
          return (terms[index].action, state.observer, state.threadPreparer)
        }
        return nil
      }
    guard let (action, observer, preparer) = fired else { return .proceed }
    if action.code == .off { return .proceed }
    if action.code == .thread, let inner = action.inner {
      BackgroundThread.runAndJoin {
        preparer?()
        observer?(FailpointTrigger(name: name, action: action, monotonicNanoseconds: MonotonicClock.nanoseconds()))
        FaultInjection.perform(inner, name: name)
      }
      return Self.result(of: inner)
    }
    observer?(FailpointTrigger(name: name, action: action, monotonicNanoseconds: MonotonicClock.nanoseconds()))
    FaultInjection.perform(action, name: name)
    return Self.result(of: action)
  }

  /// What the caller of an action that returned is told: `return(errno)` fails the I/O point.
  private static func result(of action: FailpointAction) -> FailpointResult {
    guard action.code == .returnError, let errno = action.errno else { return .proceed }
    return .fail(errno: errno)
  }

  /// Whether `name` is one of `declared` (exactly, or under a `prefix*` pattern).
  public static func matches(_ name: String, _ declared: [String]) -> Bool {
    declared.contains { pattern in
      pattern.hasSuffix("*") ? name.hasPrefix(pattern.dropLast()) : name == pattern
    }
  }

  private static func offset(of needle: String, in text: String) -> Int {
    let haystack = Array(text)
    let needle = Array(needle)
    guard needle.count <= haystack.count else { return 0 }
    return (0...(haystack.count - needle.count)).first { Array(haystack[$0..<$0 + needle.count]) == needle } ?? 0
  }

  private static func describe(_ term: FailpointTerm) -> String {
    var text = ""
    if term.probability < 1 { text += "\(term.probability * 100)%" }
    if let remaining = term.remaining { text += "\(remaining)*" }
    return text + term.action.spec
  }
}

/// Keeps some failpoints configured for its lifetime (RAII-style, for tests).
public final class FailpointScope: Sendable {
  private let registry: FailpointRegistry
  private let names: [String]

  init(registry: FailpointRegistry, names: [String]) {
    self.registry = registry
    self.names = names
  }

  /// Removes the scope's failpoints now.
  public func end() { names.forEach(registry.remove) }

  deinit { end() }
}
