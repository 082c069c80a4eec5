import Failpoints
import Foundation
import Yams

/// Loads and strictly validates scenario files: unknown keys, wrong types, unknown outcomes or
/// signals and bad durations are errors naming the file, line and column.
public enum ScenarioLoader {
  /// Keys allowed at the top of a scenario (kept in step with `Scenarios/scenario.schema.json` by a test).
  public static let scenarioKeys = [
    "name", "description", "timeout", "target", "app", "env", "swift_backtrace", "supervisor", "daemon",
    "container", "kubernetes", "launches", "runtime", "memory", "pids", "init", "dependency", "requires",
    "services", "systemd",
  ]
  /// Keys allowed in `supervisor`.
  public static let supervisorKeys = ["notify", "start_timeout", "stop_timeout", "watchdog"]
  /// Keys allowed in `daemon` (when it is a mapping rather than `true`).
  public static let daemonKeys = ["stop_after", "stop_timeout"]
  /// Keys allowed in a launch.
  public static let launchKeys = [
    "failpoints", "app", "env", "repeat", "parallel", "timeout", "before", "send_signal", "expect", "requests",
    "container", "runtime", "memory", "pids", "init", "dependency", "user", "services", "start", "systemctl",
  ]
  /// Keys allowed in `expect`.
  public static let expectKeys =
    [
      "outcome", "signal", "exit_code", "count", "mode", "level", "relaunched", "events", "no_events",
      "backtrace_contains", "handler_latency_us", "notify", "state", "probes", "restart_delay", "files",
      "systemd", "journal_contains", "journal_lacks", "started_at",
    ] + OutputExpectation.keys
  /// Keys allowed in `expect.state`.
  public static let stateKeys = [
    "count", "launches_in_progress", "attempted_level", "last_crash_type", "last_uncounted_exit", "moved_aside",
  ]
  /// Keys allowed in an entry of `before`.
  public static let setupKeys = [
    "write_state", "write_file", "edit_boot_id", "reuse_pid", "unwritable_state_dir", "new_binary", "command", "user",
  ]
  /// Keys allowed in `write_file`.
  public static let writeFileKeys = ["path", "text"]
  /// Keys allowed in `send_signal`.
  public static let signalKeys = ["signal", "after_event"]
  /// Keys allowed in an entry of `requests` (`exit_code`, `output_contains` and `timeout` go with `command`).
  public static let requestKeys = [
    "after_event", "http", "command", "exit_code", "output_contains", "timeout", "optional", "user",
  ]
  /// Keys allowed in `http` of a request.
  public static let httpKeys = [
    "method", "path", "body", "headers", "port", "status", "body_contains", "body_equals", "timeout", "retry_for",
  ]
  /// Methods an `http` request may use.
  public static let httpMethods = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]

  /// Loads one file.
  public static func load(path: String) throws(ScenarioError) -> Scenario {
    guard let data = FileManager.default.contents(atPath: path) else {
      throw ScenarioError(path: path, line: 0, column: 0, message: "cannot read the file")
    }
    guard let text = String(data: data, encoding: .utf8) else {
      let (line, column, byte) = TextPosition.firstInvalidUTF8([UInt8](data)) ?? (1, 1, 0)
      throw ScenarioError(
        path: path, line: line, column: column, message: "not UTF-8: invalid byte 0x\(TextPosition.hex(byte))")
    }
    return try parse(text, path: path)
  }

  /// 1-based line and column (in Unicode scalars, like libyaml's marks) of a character offset.
  private static func position(ofCharacter offset: Int, in text: String) -> (line: Int, column: Int) {
    var line = 1
    var column = 1
    for scalar in text.prefix(max(0, offset)).unicodeScalars {
      if scalar == "\n" {
        line += 1
        column = 1
      } else {
        column += 1
      }
    }
    return (line, column)
  }

  /// Parses scenario text; `path` is used in errors.
  public static func parse(_ text: String, path: String) throws(ScenarioError) -> Scenario {
    let root: Node?
    do {
      root = try Yams.compose(yaml: text)
    } catch let error as YamlError {
      throw yamlError(error, path: path)
    } catch {
      throw ScenarioError(path: path, line: 0, column: 0, message: "\(error)")
    }
    guard let root else { throw ScenarioError(path: path, line: 1, column: 1, message: "empty scenario file") }
    let reader = NodeReader(path: path)
    let top = try reader.mapping(root, keys: scenarioKeys, what: "scenario")
    guard let nameNode = top["name"] else { throw reader.error(root, "missing required key 'name'") }
    guard let launchesNode = top["launches"] else { throw reader.error(root, "missing required key 'launches'") }
    let launchNodes = try reader.sequence(launchesNode, what: "launches")
    if launchNodes.isEmpty { throw reader.error(launchesNode, "'launches' must list at least one launch") }
    try checkDependencyDeclared(top, launchNodes: launchNodes, reader: reader)
    var launches: [LaunchSpec] = []
    for node in launchNodes { launches.append(try launch(node, reader: reader)) }
    var scenario = Scenario(
      path: path, name: try reader.string(nameNode, what: "name"),
      description: try top["description"].map { node throws(ScenarioError) in
        try reader.string(node, what: "description")
      },
      timeoutSeconds: try top["timeout"].map { node throws(ScenarioError) in try reader.duration(node) } ?? 10,
      target: try top["target"].map { node throws(ScenarioError) in try reader.string(node, what: "target") }
        ?? "chaos-target",
      targetLine: top["target"]?.mark?.line ?? 0,
      app: try top["app"].map { node throws(ScenarioError) in try reader.object(node, what: "app") },
      environment: try top["env"].map { node throws(ScenarioError) in try reader.stringMap(node, what: "env") } ?? [:],
      swiftBacktrace: try top["swift_backtrace"].map { node throws(ScenarioError) in
        try reader.string(node, what: "swift_backtrace")
      } ?? "enable=no",
      supervisor: try top["supervisor"].map { node throws(ScenarioError) in try supervisor(node, reader: reader) },
      daemon: try top["daemon"].flatMap { node throws(ScenarioError) in try daemon(node, reader: reader) },
      container: try top["container"].map { node throws(ScenarioError) in try reader.bool(node, what: "container") }
        ?? false,
      containerLine: top["container"]?.mark?.line ?? 0,
      kubelet: try kubelet(top, launches: launches, reader: reader),
      launches: launches)
    scenario.runtime = try RuntimeLoader.settings(top, reader: reader)
    if let node = top["kubernetes"], case .mapping = node {
      let pod = try RuntimeLoader.kubernetes(
        try reader.mapping(node, keys: KubeletLoader.keys, what: "kubernetes"), reader: reader)
      scenario.runtime = pod.over(scenario.runtime)
    }
    scenario.dependency = try top["dependency"].map { node throws(ScenarioError) in
      try dependency(node, reader: reader)
    }
    scenario.requires = try requirements(top["requires"], reader: reader)
    scenario.services =
      try top["services"].map { node throws(ScenarioError) in try services(node, reader: reader) } ?? []
    for (index, node) in launchNodes.enumerated() {
      guard case .mapping(let mapping) = node, let key = mapping.keys.first(where: { $0.scalar?.string == "services" }),
        let value = mapping[key]
      else { continue }
      scenario.launches[index].services = try serviceStates(value, declared: scenario.services, reader: reader)
    }
    try RuntimeLoader.checkRuntimeGiven(scenario)
    scenario.systemd = try systemd(top, launchNodes: launchNodes, launches: launches, reader: reader)
    return scenario
  }

  private static func launch(_ node: Node, reader: NodeReader) throws(ScenarioError) -> LaunchSpec {
    let map = try reader.mapping(node, keys: launchKeys, what: "launch")
    guard let expectNode = map["expect"] else { throw reader.error(node, "launch is missing required key 'expect'") }
    var before: [SetupAction] = []
    if let list = map["before"] {
      for entry in try reader.sequence(list, what: "before") { before.append(try setup(entry, reader: reader)) }
    }
    var signal: SignalDelivery?
    if let node = map["send_signal"] {
      let fields = try reader.mapping(node, keys: signalKeys, what: "send_signal")
      guard let signalNode = fields["signal"], let eventNode = fields["after_event"] else {
        throw reader.error(node, "send_signal needs 'signal' and 'after_event'")
      }
      signal = SignalDelivery(
        signal: try reader.signal(signalNode), afterEvent: try reader.string(eventNode, what: "after_event"))
    }
    var failpoints = ""
    if let node = map["failpoints"] {
      failpoints = try reader.string(node, what: "failpoints")
      do {
        _ = try FailpointSpecParser.parse(failpoints)
      } catch {
        let quoted = node.scalar.map { $0.style == .doubleQuoted || $0.style == .singleQuoted } ?? false
        throw ScenarioError(
          path: reader.path, line: node.mark?.line ?? 0,
          column: (node.mark?.column ?? 0) + (quoted ? 1 : 0) + error.offset,
          message: "invalid failpoints '\(failpoints)': \(error.message)")
      }
    }
    var launch = LaunchSpec(
      line: node.mark?.line ?? 0,
      failpoints: failpoints,
      failpointsLine: map["failpoints"]?.mark?.line ?? node.mark?.line ?? 0,
      app: try map["app"].map { node throws(ScenarioError) in try reader.object(node, what: "app") },
      environment: try map["env"].map { node throws(ScenarioError) in try reader.stringMap(node, what: "env") } ?? [:],
      repeatCount: try map["repeat"].map { node throws(ScenarioError) in
        try reader.integer(node, what: "repeat", minimum: 1)
      } ?? 1,
      parallel: try map["parallel"].map { node throws(ScenarioError) in
        try reader.integer(node, what: "parallel", minimum: 1)
      } ?? 1,
      timeoutSeconds: try map["timeout"].map { node throws(ScenarioError) in try reader.duration(node) },
      before: before, sendSignal: signal, expect: try expectation(expectNode, reader: reader),
      requests: try map["requests"].map { node throws(ScenarioError) in
        try reader.sequence(node, what: "requests").map { node throws(ScenarioError) in
          try request(node, reader: reader)
        }
      } ?? [],
      container: try map["container"].map { node throws(ScenarioError) in try reader.bool(node, what: "container") })
    launch.runtime = try RuntimeLoader.settings(map, reader: reader)
    if let node = map["dependency"] { launch.dependency = try dependencyState(node, reader: reader) }
    if let node = map["user"] { launch.user = try runAs(node, reader: reader) }
    try systemdLaunch(map, into: &launch, reader: reader)
    return launch
  }

  private static func expectation(_ node: Node, reader: NodeReader) throws(ScenarioError) -> Expectation {
    let map = try reader.mapping(node, keys: expectKeys, what: "expect")
    var expect = Expectation()
    if let node = map["outcome"] {
      let text = try reader.string(node, what: "outcome")
      guard let outcome = Outcome(rawValue: text) else {
        throw reader.error(
          node, "unknown outcome '\(text)' (known: \(Outcome.allCases.map(\.rawValue).joined(separator: ", ")))")
      }
      expect.outcome = outcome
    }
    if let node = map["signal"] { expect.signal = try reader.signal(node) }
    if let node = map["exit_code"] { expect.exitCode = Int32(try reader.integer(node, what: "exit_code", minimum: 0)) }
    if let node = map["count"] { expect.count = try reader.integer(node, what: "count", minimum: 0) }
    if let node = map["mode"] {
      let mode = try reader.string(node, what: "mode")
      guard let known = ReportedMode(rawValue: mode) else {
        let modes = ReportedMode.allCases.map(\.rawValue).joined(separator: ", ")
        throw reader.error(node, "unknown mode '\(mode)' (known: \(modes))")
      }
      expect.mode = known
    }
    if let node = map["level"] { expect.level = try reader.integer(node, what: "level", minimum: 1) }
    if let node = map["relaunched"] { expect.relaunched = try reader.bool(node, what: "relaunched") }
    if let node = map["events"] {
      expect.events = try reader.sequence(node, what: "events").map { node throws(ScenarioError) in
        try reader.eventPattern(node, counted: true)
      }
    }
    if let node = map["no_events"] {
      expect.noEvents = try reader.sequence(node, what: "no_events").map { node throws(ScenarioError) in
        try reader.eventPattern(node)
      }
    }
    if let node = map["backtrace_contains"] {
      expect.backtraceContains = try reader.sequence(node, what: "backtrace_contains").map {
        node throws(ScenarioError) in
        try reader.string(node, what: "backtrace_contains entry")
      }
    }
    if let node = map["notify"] {
      expect.notify = try reader.sequence(node, what: "notify").map { node throws(ScenarioError) in
        try reader.string(node, what: "notify entry")
      }
    }
    if let node = map["probes"] { expect.probes = try KubeletLoader.expectation(node, reader: reader) }
    if let node = map["restart_delay"] {
      expect.restartDelay = try reader.duration(node, what: "restart_delay", zeroAllowed: true)
    }
    expect.output = try OutputExpectation.load(map, reader: reader)
    expect.files = try FileExpectation.load(map["files"], reader: reader)
    try systemdExpectation(map, into: &expect, reader: reader)
    if let node = map["handler_latency_us"] {
      expect.handlerLatencyMicroseconds = try reader.number(node, what: "handler_latency_us")
    }
    if let node = map["state"] {
      let fields = try reader.mapping(node, keys: stateKeys, what: "state")
      var state = StateExpectation()
      if let node = fields["count"] { state.count = try reader.integer(node, what: "count", minimum: 0) }
      if let node = fields["launches_in_progress"] {
        state.launchesInProgress = try reader.integer(node, what: "launches_in_progress", minimum: 0)
      }
      if let node = fields["attempted_level"] {
        state.attemptedLevel = try reader.integer(node, what: "attempted_level", minimum: 0)
      }
      if let node = fields["last_crash_type"] { state.lastCrashType = try reader.string(node, what: "last_crash_type") }
      if let node = fields["last_uncounted_exit"] {
        state.lastUncountedExit = try reader.string(node, what: "last_uncounted_exit")
      }
      if let node = fields["moved_aside"] { state.movedAside = try reader.bool(node, what: "moved_aside") }
      expect.state = state
    }
    return expect
  }

  private static func yamlError(_ error: YamlError, path: String) -> ScenarioError {
    switch error {
    case .scanner(_, let problem, let mark, _), .parser(_, let problem, let mark, _),
      .composer(_, let problem, let mark, _):
      return ScenarioError(path: path, line: mark.line, column: mark.column, message: "invalid YAML: \(problem)")
    case .duplicatedKeysInMapping(let duplicates, let context):
      let keys = duplicates.sorted().map { "'\($0)'" }.joined(separator: ", ")
      return ScenarioError(
        path: path, line: context.mark.line, column: context.mark.column,
        message: "duplicate key \(keys) in this mapping")
    case .reader(let problem, let offset?, let value, let yaml):
      // libyaml's reader (invalid characters) gives an offset, not a mark.
      let (line, column) = position(ofCharacter: offset, in: yaml)
      let character = value >= 0 ? " (U+\(String(value, radix: 16, uppercase: true)))" : ""
      return ScenarioError(path: path, line: line, column: column, message: "invalid YAML: \(problem)\(character)")
    default:
      // No position: out of memory and the like.
      return ScenarioError(path: path, line: 0, column: 0, message: "invalid YAML: \(error)")
    }
  }
}
