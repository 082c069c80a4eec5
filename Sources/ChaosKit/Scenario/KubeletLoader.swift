import Yams

/// Reads `kubernetes:` and the `probes:` expectation (ScenarioLoader's part for the kubelet).
enum KubeletLoader {
  /// Keys allowed in `kubernetes`.
  static let keys = [
    "restart_policy", "backoff", "time_scale", "termination_grace_period", "startup_probe", "liveness_probe",
    "readiness_probe", "runtime", "resources",
  ]
  /// Keys allowed in `kubernetes.backoff`.
  static let backoffKeys = ["initial", "cap", "reset_after"]
  /// Keys allowed in a probe.
  static let probeKeys = [
    "http", "command", "period", "timeout", "failure_threshold", "success_threshold", "initial_delay",
  ]
  /// Keys allowed in a probe's `http`.
  static let httpKeys = ["path", "port"]
  /// Keys allowed in `expect.probes`.
  static let expectationKeys = ["startup", "liveness", "readiness"]

  static func kubelet(_ node: Node, reader: NodeReader) throws(ScenarioError) -> KubeletSpec {
    let map = try reader.mapping(node, keys: keys, what: "kubernetes")
    var spec = KubeletSpec()
    if let node = map["restart_policy"] {
      let text = try reader.string(node, what: "restart_policy")
      guard let policy = KubeletSpec.RestartPolicy(rawValue: text) else {
        let known = KubeletSpec.RestartPolicy.allCases.map(\.rawValue).joined(separator: ", ")
        throw reader.error(node, "unknown restart_policy '\(text)' (known: \(known))")
      }
      spec.restartPolicy = policy
    }
    if let node = map["backoff"] {
      let backoff = try reader.mapping(node, keys: backoffKeys, what: "backoff")
      if let node = backoff["initial"] { spec.backoffInitial = try reader.duration(node, what: "initial") }
      if let node = backoff["cap"] { spec.backoffCap = try reader.duration(node, what: "cap") }
      if let node = backoff["reset_after"] { spec.backoffReset = try reader.duration(node, what: "reset_after") }
    }
    if let node = map["time_scale"] {
      spec.timeScale = try reader.number(node, what: "time_scale")
      guard spec.timeScale > 0, spec.timeScale <= 1 else {
        throw reader.error(node, "'time_scale' must be more than 0 and at most 1")
      }
    }
    if let node = map["termination_grace_period"] {
      spec.terminationGracePeriod = try reader.duration(node, what: "termination_grace_period", zeroAllowed: true)
    }
    if let node = map["startup_probe"] { spec.startupProbe = try probe(node, reader: reader, what: "startup_probe") }
    if let node = map["liveness_probe"] { spec.livenessProbe = try probe(node, reader: reader, what: "liveness_probe") }
    if let node = map["readiness_probe"] {
      spec.readinessProbe = try probe(node, reader: reader, what: "readiness_probe")
    }
    return spec
  }

  private static func probe(_ node: Node, reader: NodeReader, what: String) throws(ScenarioError) -> ProbeSpec {
    let map = try reader.mapping(node, keys: probeKeys, what: what)
    var probe: ProbeSpec
    switch (map["http"], map["command"]) {
    case (let http?, nil):
      let fields = try reader.mapping(http, keys: httpKeys, what: "http")
      guard let pathNode = fields["path"] else { throw reader.error(http, "'http' needs 'path'") }
      let path = try reader.string(pathNode, what: "path")
      guard path.hasPrefix("/") else { throw reader.error(pathNode, "'path' must start with /") }
      let port = try fields["port"].map { node throws(ScenarioError) in
        try reader.integer(node, what: "port", minimum: 1)
      }
      probe = ProbeSpec(action: .http(path: path, port: port))
    case (nil, let command?):
      let arguments = try reader.sequence(command, what: "command").map { node throws(ScenarioError) in
        try reader.string(node, what: "command argument")
      }
      guard !(arguments.first?.isEmpty ?? true) else { throw reader.error(command, "'command' must name a program") }
      probe = ProbeSpec(action: .command(arguments))
    default:
      throw reader.error(node, "\(what) needs exactly one of 'http' or 'command'")
    }
    if let node = map["period"] { probe.period = try reader.duration(node, what: "period") }
    if let node = map["timeout"] { probe.timeout = try reader.duration(node, what: "timeout") }
    if let node = map["failure_threshold"] {
      probe.failureThreshold = try reader.integer(node, what: "failure_threshold", minimum: 1)
    }
    if let node = map["success_threshold"] {
      probe.successThreshold = try reader.integer(node, what: "success_threshold", minimum: 1)
      if what != "readiness_probe", probe.successThreshold != 1 {
        throw reader.error(node, "'success_threshold' must be 1 for \(what) (as Kubernetes requires)")
      }
    }
    if let node = map["initial_delay"] {
      probe.initialDelay = try reader.duration(node, what: "initial_delay", zeroAllowed: true)
    }
    return probe
  }

  /// `probes: { startup: passed|failed, liveness: passed|failed, readiness: ready|not_ready }`.
  static func expectation(_ node: Node, reader: NodeReader) throws(ScenarioError) -> ProbeExpectation {
    let map = try reader.mapping(node, keys: expectationKeys, what: "probes")
    func word(_ key: String, _ yes: String, _ no: String) throws(ScenarioError) -> Bool? {
      guard let node = map[key] else { return nil }
      let text = try reader.string(node, what: key)
      if text == yes { return true }
      if text == no { return false }
      throw reader.error(node, "'\(key)' must be \(yes) or \(no), not '\(text)'")
    }
    return ProbeExpectation(
      startup: try word("startup", "passed", "failed"), liveness: try word("liveness", "passed", "failed"),
      readiness: try word("readiness", "ready", "not_ready"))
  }
}
