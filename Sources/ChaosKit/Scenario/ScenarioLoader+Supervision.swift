import Yams

/// Who supervises the launches: `supervisor:` (systemd), `daemon:` (a service manager's stop)
/// and `kubernetes:` (the kubelet).
extension ScenarioLoader {
  /// `kubernetes:`, checked against the rest of the scenario.
  static func kubelet(_ top: [String: Node], launches: [LaunchSpec], reader: NodeReader) throws(ScenarioError)
    -> KubeletSpec?
  {
    guard let node = top["kubernetes"] else { return nil }
    if let supervisor = top["supervisor"] {
      throw reader.error(supervisor, "'supervisor' (systemd) and 'kubernetes' (the kubelet) cannot both play the part")
    }
    let spec = try KubeletLoader.kubelet(node, reader: reader)
    if spec.restartPolicy == .never, launches.count > 1 {
      throw ScenarioError(
        path: reader.path, line: launches[1].line, column: 1,
        message: "restart_policy Never: the kubelet never restarts the container, so a scenario has one launch")
    }
    return spec
  }

  /// `daemon: true`, `daemon: false` or `daemon: { stop_after, stop_timeout }`.
  static func daemon(_ node: Node, reader: NodeReader) throws(ScenarioError) -> DaemonSpec? {
    if node.mapping == nil {
      guard case .scalar(let scalar) = node, let value = Bool.construct(from: scalar) else {
        throw reader.error(node, "'daemon' must be true, false or a mapping { stop_after, stop_timeout }")
      }
      return value ? DaemonSpec() : nil
    }
    let map = try reader.mapping(node, keys: daemonKeys, what: "daemon")
    return DaemonSpec(
      stopAfter: try map["stop_after"].map { node throws(ScenarioError) in
        try reader.duration(node, what: "stop_after", zeroAllowed: true)
      } ?? 0,
      stopTimeout: try map["stop_timeout"].map { node throws(ScenarioError) in
        try reader.duration(node, what: "stop_timeout")
      } ?? 5)
  }

  static func supervisor(_ node: Node, reader: NodeReader) throws(ScenarioError) -> SupervisorSpec {
    let map = try reader.mapping(node, keys: supervisorKeys, what: "supervisor")
    let spec = SupervisorSpec(
      notify: try map["notify"].map { node throws(ScenarioError) in try reader.bool(node, what: "notify") } ?? true,
      startTimeout: try map["start_timeout"].map { node throws(ScenarioError) in try reader.duration(node) },
      stopTimeout: try map["stop_timeout"].map { node throws(ScenarioError) in try reader.duration(node) } ?? 5,
      watchdog: try map["watchdog"].map { node throws(ScenarioError) in try reader.duration(node) })
    if !spec.notify && (spec.startTimeout != nil || spec.watchdog != nil) {
      throw reader.error(node, "start_timeout and watchdog need notify: true (they wait for READY=1 and WATCHDOG=1)")
    }
    return spec
  }

  /// `systemd:`, checked against the rest of the scenario (nil: absent).
  static func systemd(_ top: [String: Node], launchNodes: [Node], launches: [LaunchSpec], reader: NodeReader)
    throws(ScenarioError)
    -> SystemdSpec?
  {
    guard let node = top["systemd"] else {
      try SystemdLoader.checkNeedsSystemd(launchNodes, reader: reader)
      return nil
    }
    try SystemdLoader.check(top, launches: launchNodes, reader: reader)
    try SystemdLoader.checkPowerCuts(launches, reader: reader)
    return try SystemdLoader.spec(node, scenarioPath: reader.path, reader: reader)
  }

  /// A launch's `start:` and `systemctl:` (they need `systemd:`, checked when it is read).
  static func systemdLaunch(_ map: [String: Node], into launch: inout LaunchSpec, reader: NodeReader)
    throws(ScenarioError)
  {
    if let node = map["start"] { launch.systemdStart = try SystemdLoader.start(node, reader: reader) }
    if let node = map["systemctl"] { launch.systemctl = try SystemdLoader.step(node, reader: reader) }
  }

  /// `expect`'s `systemd:`, `journal_contains:` and `started_at:`.
  static func systemdExpectation(_ map: [String: Node], into expect: inout Expectation, reader: NodeReader)
    throws(ScenarioError)
  {
    if let node = map["systemd"] { expect.systemd = try SystemdLoader.expectation(node, reader: reader) }
    if let node = map["journal_contains"] {
      expect.journalContains = try reader.sequence(node, what: "journal_contains").map { node throws(ScenarioError) in
        try reader.string(node, what: "journal_contains entry")
      }
    }
    if let node = map["journal_lacks"] {
      expect.journalLacks = try reader.sequence(node, what: "journal_lacks").map { node throws(ScenarioError) in
        try reader.string(node, what: "journal_lacks entry")
      }
    }
    if let node = map["started_at"] { expect.startedAt = try SystemdLoader.startedAt(node, reader: reader) }
  }
}
