/// `dependency: { name: backend }` (top level): a real TCP listener the harness runs on
/// 127.0.0.1 for the whole scenario run, a dependency (a database, a config service) that each
/// launch finds up or down. Its port is `CHAOS_DEPENDENCY_PORT` in every launch.
package struct DependencySpec: Sendable, Equatable {
  /// The dependency's name, in the harness's `dependency` events (e.g. `postgres`).
  package var name: String
  /// The line of `dependency:`, for errors about it.
  package var line: Int

  /// Creates a spec.
  package init(name: String, line: Int) {
    self.name = name
    self.line = line
  }
}

/// A launch's `dependency:`: what the listener does from the launch's spawn on.
package enum DependencyState: Sendable, Equatable, CustomStringConvertible {
  /// Listening: a connect succeeds and reads `ok\n` (the default).
  case up
  /// Nothing listens on the port: a connect is refused (ECONNREFUSED).
  case down
  /// Down at the spawn, listening again this many seconds later (`{ down_for: 2s }`).
  case downFor(Double)

  package var description: String {
    switch self {
    case .up: "up"
    case .down: "down"
    case .downFor(let seconds): "down for \(Int((seconds * 1000).rounded())) ms"
    }
  }
}
