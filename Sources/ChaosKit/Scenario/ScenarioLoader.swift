import Failpoints
import Foundation
import Yams

/// Loads and strictly validates scenario files: unknown keys, wrong types, unknown outcomes or
/// signals and bad durations are errors naming the file, line and column.
public enum ScenarioLoader {
  /// Keys allowed at the top of a scenario (kept in step with `Scenarios/scenario.schema.json` by a test).
  public static let scenarioKeys = [
    "name", "description", "timeout", "target", "app", "env", "swift_backtrace", "supervisor", "daemon",
    "container", "kubernetes", "launches", "runtime", "memory", "pids", "init", "dependency",
  ]
  /// Keys allowed in `supervisor`.
  public static let supervisorKeys = ["notify", "start_timeout", "stop_timeout", "watchdog"]
  /// Keys allowed in `daemon` (when it is a mapping rather than `true`).
  public static let daemonKeys = ["stop_after", "stop_timeout"]
  /// Keys allowed in a launch.
  public static let launchKeys = [
    "failpoints", "app", "env", "repeat", "parallel", "timeout", "before", "send_signal", "expect", "requests",
    "container", "runtime", "memory", "pids", "init", "dependency",
  ]
  /// Keys allowed in `expect`.
  public static let expectKeys = [
    "outcome", "signal", "exit_code", "count", "mode", "level", "relaunched", "events", "no_events",
    "backtrace_contains", "handler_latency_us", "notify", "state", "probes", "restart_delay",
  ]
  /// Keys allowed in `expect.state`.
  public static let stateKeys = [
    "count", "launches_in_progress", "attempted_level", "last_crash_type", "last_uncounted_exit", "moved_aside",
  ]
  /// Keys allowed in an entry of `before`.
  public static let setupKeys = [
    "write_state", "write_file", "edit_boot_id", "reuse_pid", "unwritable_state_dir", "new_binary",
  ]
  /// Keys allowed in `write_file`.
  public static let writeFileKeys = ["path", "text"]
  /// Keys allowed in `send_signal`.
  public static let signalKeys = ["signal", "after_event"]
  /// Keys allowed in an entry of `requests` (`exit_code`, `output_contains` and `timeout` go with `command`).
  public static let requestKeys = [
    "after_event", "http", "command", "exit_code", "output_contains", "timeout", "optional",
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
    try RuntimeLoader.checkRuntimeGiven(scenario)
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
    return launch
  }

  static func request(_ node: Node, reader: NodeReader) throws(ScenarioError) -> RequestStep {
    let map = try reader.mapping(node, keys: requestKeys, what: "request")
    var step = try requestAction(node, map: map, reader: reader)
    if let optional = map["optional"] { step.optional = try reader.bool(optional, what: "optional") }
    return step
  }

  private static func requestAction(_ node: Node, map: [String: Node], reader: NodeReader) throws(ScenarioError)
    -> RequestStep
  {
    let afterEvent =
      try map["after_event"].map { node throws(ScenarioError) in try reader.string(node, what: "after_event") }
      ?? "launching_finished"
    let line = node.mark?.line ?? 0
    switch (map["http"], map["command"]) {
    case (let httpNode?, nil):
      for key in ["exit_code", "output_contains", "timeout"] {
        if let stray = map[key] {
          throw reader.error(
            stray, "'\(key)' goes with 'command'; for 'http', put 'status', 'body_contains' or 'timeout' inside 'http'")
        }
      }
      return RequestStep(line: line, afterEvent: afterEvent, action: .http(try http(httpNode, reader: reader)))
    case (nil, let commandNode?):
      let arguments = try reader.sequence(commandNode, what: "command").map { node throws(ScenarioError) in
        try reader.string(node, what: "command argument")
      }
      if arguments.first?.isEmpty ?? true {
        throw reader.error(commandNode, "'command' must be a non-empty argv list, e.g. [\"sh\", \"-c\", \"...\"]")
      }
      let exitCode =
        try map["exit_code"].map { node throws(ScenarioError) in
          try reader.integer(node, what: "exit_code", minimum: 0)
        } ?? 0
      if exitCode > 255 { throw reader.error(map["exit_code"]!, "'exit_code' must be at most 255, not \(exitCode)") }
      return RequestStep(
        line: line, afterEvent: afterEvent,
        action: .command(
          CommandStep(
            arguments: arguments, exitCode: Int32(exitCode),
            outputContains: try map["output_contains"].map { node throws(ScenarioError) in
              try reader.string(node, what: "output_contains")
            },
            timeoutSeconds: try map["timeout"].map { node throws(ScenarioError) in try reader.duration(node) } ?? 5)))
    case (.some, .some):
      throw reader.error(node, "a request has exactly one of 'http' and 'command', not both")
    case (nil, nil):
      throw reader.error(node, "a request needs 'http' (a request to the target) or 'command' (an argv list)")
    }
  }

  private static func http(_ node: Node, reader: NodeReader) throws(ScenarioError) -> HTTPStep {
    let map = try reader.mapping(node, keys: httpKeys, what: "http")
    guard let pathNode = map["path"] else { throw reader.error(node, "http needs 'path' (e.g. /health)") }
    let path = try reader.string(pathNode, what: "path")
    if !path.hasPrefix("/") || path.contains(where: { $0.isWhitespace || $0.isNewline }) {
      throw reader.error(pathNode, "http path '\(path)' must start with '/' and contain no spaces")
    }
    var method = "GET"
    if let methodNode = map["method"] {
      method = try reader.string(methodNode, what: "method")
      guard httpMethods.contains(method) else {
        throw reader.error(methodNode, "unknown method '\(method)' (known: \(httpMethods.joined(separator: ", ")))")
      }
    }
    var headers: [String: String] = [:]
    if let headersNode = map["headers"] {
      headers = try reader.stringMap(headersNode, what: "headers")
      let token = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "!#$%&'*+-.^_`|~"))
      for (name, value) in headers
      where name.isEmpty || name.unicodeScalars.contains(where: { !token.contains($0) || !$0.isASCII })
        || value.contains(where: \.isNewline)
      {
        throw reader.error(headersNode, "bad header '\(name)': a name is a token, a value has no line breaks")
      }
    }
    var port: Int?
    if let portNode = map["port"], (try? reader.string(portNode, what: "port")) != "${CHAOS_PORT}" {
      let number = try reader.integer(portNode, what: "port", minimum: 1)
      if number > 65535 { throw reader.error(portNode, "'port' must be at most 65535, not \(number)") }
      port = number
    }
    var status = 200
    if let statusNode = map["status"] {
      status = try reader.integer(statusNode, what: "status", minimum: 100)
      if status > 599 { throw reader.error(statusNode, "'status' must be an HTTP status, 100 to 599, not \(status)") }
    }
    func text(_ key: String) throws(ScenarioError) -> String? {
      try map[key].map { node throws(ScenarioError) in try reader.string(node, what: key) }
    }
    return HTTPStep(
      method: method, path: path, body: try text("body"), headers: headers, port: port, status: status,
      bodyContains: try text("body_contains"), bodyEquals: try text("body_equals"),
      timeoutSeconds: try map["timeout"].map { node throws(ScenarioError) in try reader.duration(node) } ?? 2,
      retryForSeconds: try map["retry_for"].map { node throws(ScenarioError) in
        try reader.duration(node, what: "retry_for")
      } ?? 0)
  }

  private static func setup(_ node: Node, reader: NodeReader) throws(ScenarioError) -> SetupAction {
    let map = try reader.mapping(node, keys: setupKeys, what: "before entry")
    guard map.count == 1, let (key, value) = map.first else {
      throw reader.error(node, "each 'before' entry has exactly one of: \(setupKeys.joined(separator: ", "))")
    }
    switch key {
    case "write_state": return .writeState(try reader.string(value, what: "write_state"))
    case "write_file":
      let fields = try reader.mapping(value, keys: writeFileKeys, what: "write_file")
      guard let pathNode = fields["path"], let textNode = fields["text"] else {
        throw reader.error(value, "write_file needs 'path' (relative to the state directory) and 'text'")
      }
      let relative = try reader.string(pathNode, what: "path")
      if relative.hasPrefix("/") || relative.split(separator: "/").contains("..") || relative.isEmpty {
        throw reader.error(
          pathNode, "write_file path '\(relative)' must stay inside the state directory (no '/' start, no '..')")
      }
      return .writeFile(path: relative, text: try reader.string(textNode, what: "text"))
    case "edit_boot_id": return .editBootID(try reader.string(value, what: "edit_boot_id"))
    case "reuse_pid":
      guard try reader.bool(value, what: key) else { throw reader.error(value, "'\(key)' can only be true") }
      return .reusePid
    case "unwritable_state_dir":
      guard try reader.bool(value, what: key) else { throw reader.error(value, "'\(key)' can only be true") }
      return .unwritableStateDirectory
    default:
      guard try reader.bool(value, what: key) else { throw reader.error(value, "'\(key)' can only be true") }
      return .newBinary
    }
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
    if let node = map["events"] { expect.events = try reader.sequence(node, what: "events").map(reader.eventPattern) }
    if let node = map["no_events"] {
      expect.noEvents = try reader.sequence(node, what: "no_events").map(reader.eventPattern)
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
