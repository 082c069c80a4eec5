import Foundation

/// An entry of `services:` (top level): a real program the harness runs for the whole scenario
/// (PostgreSQL, Prometheus), started and ready before the first launch and stopped after the
/// last, or when the scenario fails, times out or is interrupted.
///
/// Each service gets a port on 127.0.0.1 the harness holds for the run (also while the service
/// is down, so no launch is given it), `${CHAOS_SERVICE_PORT}` in its own command and
/// `CHAOS_SERVICE_<NAME>_PORT` in every launch; more named ports with `ports:`.
package struct ServiceSpec: Sendable, Equatable {
  /// The service's name: a word of lowercase letters, digits, `-` and `_` (`postgres`).
  package var name: String
  /// argv; `${CHAOS_…}` placeholders are replaced (``ServiceSpec/variables(port:directory:)``).
  package var command: [String]
  /// Commands run once, in order, before the first start (e.g. `initdb`), as the same user.
  package var setup: [[String]] = []
  /// `http://127.0.0.1:PORT/path` or `tcp://127.0.0.1:PORT`, placeholders allowed; nil: ready
  /// once started.
  package var ready: String?
  /// Seconds the check may take to pass (default 30).
  package var readyTimeout: Double = 30
  /// The user the service and its setup run as (`user: postgres`); nil: the harness's own.
  package var user: RunAs?
  /// Extra environment of the service and its setup.
  package var environment: [String: String] = [:]
  /// More ports held for the run, by name (`ports: [target]`: `${CHAOS_SERVICE_PORT_TARGET}`,
  /// `CHAOS_SERVICE_<NAME>_PORT_TARGET`): a port a launch listens on that the service needs to
  /// know, such as the one Prometheus scrapes.
  package var ports: [String] = []
  /// The signal a stop sends first (default SIGTERM; PostgreSQL's fast shutdown is SIGINT).
  package var stopSignal: Int32 = SIGTERM
  /// Seconds from that signal to SIGKILL (default 10).
  package var stopTimeout: Double = 10
  /// The line of the entry, for errors.
  package var line: Int

  /// Creates a spec.
  package init(name: String, command: [String], line: Int) {
    self.name = name
    self.command = command
    self.line = line
  }

  /// `CHAOS_SERVICE_POSTGRES` for `postgres`: the prefix of the variables launches get.
  package var variablePrefix: String {
    "CHAOS_SERVICE_" + name.uppercased().replacingOccurrences(of: "-", with: "_")
  }

  /// The variable of a named port (`TARGET` for `target`).
  static func portSuffix(_ port: String) -> String { port.uppercased().replacingOccurrences(of: "-", with: "_") }
}

/// A launch's `services: { postgres: down }`: what a service is while the launch runs.
package enum ServiceState: String, Sendable, Equatable {
  /// Running and ready (the default: a service taken down earlier is started again).
  case up
  /// Stopped (its stop signal, then SIGKILL): a connect to its port is refused.
  case down
}
