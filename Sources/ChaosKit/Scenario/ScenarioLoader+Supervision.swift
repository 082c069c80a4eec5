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
}
