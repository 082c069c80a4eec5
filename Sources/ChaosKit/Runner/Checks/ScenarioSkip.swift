import Foundation

/// Why a scenario was skipped: it needs a privilege this run lacks (root, or a capability such
/// as `CAP_SYS_ADMIN`), as a newcomer's run as a normal user does. A skipped scenario did not
/// run, so its ``ScenarioResult/status`` is `error` (it is not a pass); `chaos run` exits 0
/// when every scenario that could run passed, unless `--require-all` is given.
public struct ScenarioSkip: Error, Sendable, Equatable, Encodable, CustomStringConvertible {
  /// The privilege it needs: `root`, or a capability name (`CAP_SYS_ADMIN`).
  public var privilege: String
  /// What needs it and who this run is, in a sentence.
  public var reason: String

  /// A skip for want of `privilege`.
  public init(privilege: String, reason: String) {
    self.privilege = privilege
    self.reason = reason
  }

  /// `needs <privilege>: <reason>`.
  public var description: String { "needs \(privilege): \(reason)" }
}

extension ScenarioResult {
  /// Whether it was skipped for want of a privilege (``skipped`` says which).
  public var isSkipped: Bool { skipped != nil }

  /// `passed`, `failed`, `error` (could not run) or `skipped`, as the reports spell it.
  package var statusText: String { isSkipped ? "skipped" : status.rawValue }

  /// The scenario could not run because of `error`: skipped when it is a ``ScenarioSkip``.
  mutating func couldNotRun(_ error: any Error) {
    status = .error
    skipped = error as? ScenarioSkip
    messages.append(skipped.map { "\(path): skipped: \($0)" } ?? "\(error)")
  }
}

extension ScenarioRunner {
  /// The first privilege the scenario needs that this run lacks, as a skip: its `requires:`,
  /// `user:` (another user's credentials), `runtime:` and `systemd:` (root) and
  /// `container: true` (CAP_SYS_ADMIN, where the namespaces cannot be made).
  func checkPrivileges(_ scenario: Scenario) throws(ScenarioSkip) {
    let who = Privileges.runner
    for requirement in scenario.requires where !Privileges.has(requirement.privilege) {
      throw ScenarioSkip(
        privilege: requirement.privilege,
        reason: "the scenario requires it (requires:, line \(requirement.line)); this run is \(who) without it")
    }
    if let (user, line) = Self.firstUser(scenario), !(Privileges.has("CAP_SETUID") && Privileges.has("CAP_SETGID")) {
      throw ScenarioSkip(
        privilege: "root",
        reason: "user: \(user.name) (line \(line)) runs a process as another user, which takes CAP_SETUID and "
          + "CAP_SETGID; this run is \(who) without them. " + Self.privilegedHint)
    }
    for launch in scenario.launches {
      let settings = launch.runtime.over(scenario.runtime)
      guard let runtime = settings.runtime else { continue }
      let needed = ["root", "CAP_SYS_ADMIN"].first { !Privileges.has($0) }
      if let needed {
        throw ScenarioSkip(
          privilege: needed,
          reason: "runtime: \(runtime.rawValue) (line \(settings.line)) makes namespaces, cgroups and a bind mount; "
            + "this run is \(who)\(needed == "root" ? "" : " without CAP_SYS_ADMIN"). " + Self.privilegedHint)
      }
    }
    if scenario.systemd != nil, !Privileges.has("root") {
      throw ScenarioSkip(
        privilege: "root",
        reason: "systemd: boots a throwaway systemd with systemd-nspawn, which takes root; this run is \(who). "
          + Self.privilegedHint)
    }
    let container = scenario.container || scenario.launches.contains { $0.container == true }
    if container, !Privileges.has("CAP_SYS_ADMIN"), let problem = ProcessLauncher.containerProblem {
      let line = scenario.container ? scenario.containerLine : scenario.launches.first { $0.container == true }!.line
      throw ScenarioSkip(privilege: "CAP_SYS_ADMIN", reason: "line \(line), \(problem)")
    }
  }

  /// How to give a run the privileges, as the errors before skips said it.
  static let privilegedHint =
    "Run chaos as root, or in a privileged container (docker run --privileged; GitHub Actions: "
    + "container.options: --privileged)"

  /// The first `user:` of a launch, a `before:` command or a request's command, with its line.
  static func firstUser(_ scenario: Scenario) -> (RunAs, Int)? {
    for launch in scenario.launches {
      if let user = launch.user { return (user, launch.line) }
      for action in launch.before {
        if case .command(_, let user?, let line) = action { return (user, line) }
      }
      for request in launch.requests {
        if case .command(let command) = request.action, let user = command.user { return (user, request.line) }
      }
    }
    return nil
  }
}
