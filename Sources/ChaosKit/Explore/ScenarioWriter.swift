import Foundation

/// A scenario in the standard YAML format (what `chaos explore` writes for the user to commit).
/// Only what generated scenarios use is written; the loader reads it back unchanged.
enum ScenarioWriter {
  static func yaml(_ scenario: Scenario, comments: [String]) -> String {
    var lines = comments.map { "# " + $0 }
    lines.append("name: \(quoted(scenario.name))")
    if let description = scenario.description { lines.append("description: \(quoted(description))") }
    lines.append("target: \(quoted(scenario.target))")
    lines.append("timeout: \(seconds(scenario.timeoutSeconds))")
    if let app = scenario.app { lines.append("app: \(json(app))") }
    if !scenario.environment.isEmpty {
      lines.append("env: \(json(.object(scenario.environment.mapValues(JSONValue.string))))")
    }
    if let daemon = scenario.daemon {
      var fields = ["stop_timeout: \(seconds(daemon.stopTimeout))"]
      if daemon.stopAfter > 0 { fields.insert("stop_after: \(seconds(daemon.stopAfter))", at: 0) }
      lines.append(daemon == DaemonSpec() ? "daemon: true" : "daemon: { \(fields.joined(separator: ", ")) }")
    }
    lines.append("launches:")
    for spec in scenario.launches {
      var first = true
      func add(_ text: String) {
        lines.append((first ? "  - " : "    ") + text)
        first = false
      }
      if !spec.failpoints.isEmpty { add("failpoints: \(quoted(spec.failpoints))") }
      if spec.repeatCount > 1 { add("repeat: \(spec.repeatCount)") }
      if spec.parallel > 1 { add("parallel: \(spec.parallel)") }
      if let timeout = spec.timeoutSeconds { add("timeout: \(seconds(timeout))") }
      if !spec.before.isEmpty { add("before: [\(spec.before.map(setup).joined(separator: ", "))]") }
      if let delivery = spec.sendSignal {
        add("send_signal: { signal: \(Signals.name(delivery.signal)), after_event: \(quoted(delivery.afterEvent)) }")
      }
      if !spec.requests.isEmpty {
        add("requests:")
        lines += spec.requests.map { "      - " + request($0) }
      }
      add("expect: { \(expectation(spec.expect)) }")
    }
    return lines.joined(separator: "\n") + "\n"
  }

  private static func expectation(_ expect: Expectation) -> String {
    var fields: [String] = []
    if let outcome = expect.outcome { fields.append("outcome: \(outcome.rawValue)") }
    if let signal = expect.signal { fields.append("signal: \(Signals.name(signal))") }
    if let code = expect.exitCode { fields.append("exit_code: \(code)") }
    if let count = expect.count { fields.append("count: \(count)") }
    if let mode = expect.mode { fields.append("mode: \(mode.rawValue)") }
    if let level = expect.level { fields.append("level: \(level)") }
    if let relaunched = expect.relaunched { fields.append("relaunched: \(relaunched)") }
    if !expect.events.isEmpty {
      let events = expect.events.map { pattern -> String in
        var fields = pattern.fields.merging(["event": .string(pattern.name)]) { $1 }
        if let times = pattern.times { fields["times"] = .number(Double(times)) }
        return fields.count == 1 ? quoted(pattern.name) : json(.object(fields))
      }
      fields.append("events: [\(events.joined(separator: ", "))]")
    }
    if !expect.noEvents.isEmpty {
      let events = expect.noEvents.map {
        $0.fields.isEmpty ? quoted($0.name) : json(.object($0.fields.merging(["event": .string($0.name)]) { $1 }))
      }
      fields.append("no_events: [\(events.joined(separator: ", "))]")
    }
    if let state = expect.state {
      var stateFields: [String] = []
      if let count = state.count { stateFields.append("count: \(count)") }
      if let level = state.attemptedLevel { stateFields.append("attempted_level: \(level)") }
      if let running = state.launchesInProgress { stateFields.append("launches_in_progress: \(running)") }
      if let reason = state.lastUncountedExit { stateFields.append("last_uncounted_exit: \(reason)") }
      fields.append("state: { \(stateFields.joined(separator: ", ")) }")
    }
    return fields.joined(separator: ", ")
  }

  /// A `requests:` entry as a flow mapping.
  static func request(_ step: RequestStep) -> String {
    var fields: [String] = []
    switch step.action {
    case .http(let http):
      var inner = ["method: \(http.method)", "path: \(quoted(http.path))"]
      if let body = http.body { inner.append("body: \(quoted(body))") }
      if !http.headers.isEmpty { inner.append("headers: \(json(.object(http.headers.mapValues(JSONValue.string))))") }
      if let port = http.port { inner.append("port: \(port)") }
      if http.status != 200 { inner.append("status: \(http.status)") }
      if let text = http.bodyContains { inner.append("body_contains: \(quoted(text))") }
      if let text = http.bodyEquals { inner.append("body_equals: \(quoted(text))") }
      if http.timeoutSeconds != 2 { inner.append("timeout: \(seconds(http.timeoutSeconds))") }
      if http.retryForSeconds > 0 { inner.append("retry_for: \(seconds(http.retryForSeconds))") }
      fields.append("http: { \(inner.joined(separator: ", ")) }")
    case .command(let command):
      fields.append("command: \(json(.array(command.arguments.map(JSONValue.string))))")
      if command.exitCode != 0 { fields.append("exit_code: \(command.exitCode)") }
      if let text = command.outputContains { fields.append("output_contains: \(quoted(text))") }
      if command.timeoutSeconds != 5 { fields.append("timeout: \(seconds(command.timeoutSeconds))") }
    }
    if step.afterEvent != "launching_finished" { fields.append("after_event: \(quoted(step.afterEvent))") }
    if step.optional { fields.append("optional: true") }
    return "{ " + fields.joined(separator: ", ") + " }"
  }

  private static func setup(_ action: SetupAction) -> String {
    switch action {
    case .writeState(let text): "{ write_state: \(quoted(text)) }"
    case .writeFile(let path, let text): "{ write_file: { path: \(quoted(path)), text: \(quoted(text)) } }"
    case .editBootID(let id): "{ edit_boot_id: \(quoted(id)) }"
    case .reusePid: "{ reuse_pid: true }"
    case .unwritableStateDirectory: "{ unwritable_state_dir: true }"
    case .newBinary: "{ new_binary: true }"
    case .command(let arguments, let user, _):
      "{ command: [\(arguments.map(quoted).joined(separator: ", "))]\(user.map { ", user: \(quoted($0.name))" } ?? "") }"
    }
  }

  /// A YAML double-quoted scalar (JSON string escaping is valid YAML).
  static func quoted(_ text: String) -> String { json(.string(text)) }

  static func json(_ value: JSONValue) -> String {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    return (try? encoder.encode(value)).map { String(decoding: $0, as: UTF8.self) } ?? "null"
  }

  private static func seconds(_ value: Double) -> String {
    value == value.rounded() ? "\(Int(value))s" : "\(Int((value * 1000).rounded()))ms"
  }
}
