import Failpoints
import Foundation
import Synchronization

/// What one `requests:` step did, as `chaos run --json` reports it.
public struct RequestResult: Codable, Sendable, Equatable {
  /// 1-based position in the launch's `requests`.
  public var index: Int
  /// The entry's line in the file.
  public var line: Int
  /// `GET /health` or the command line.
  public var label: String
  /// Whether every assertion held.
  public var ok: Bool
  /// The HTTP status of the last attempt.
  public var status: Int?
  /// How the command ended (`exit(0)`, `SIGKILL`, `timeout`).
  public var end: String?
  /// Attempts made (HTTP, with `retry_for`).
  public var attempts: Int?
  /// Wall time of the step, seconds (after its event came).
  public var seconds: Double
  /// What went wrong, nil when ok.
  public var failure: String?
}

/// Runs a launch's `requests:` on a thread of their own while the target runs: each waits for
/// its `after_event` in the events file, then makes its HTTP request or runs its command and
/// checks the result. Each result is appended to the events file as a `request` event
/// (`source: harness`). The runner holds `send_signal` until `isDone`, tells the session when the
/// target ended (a step not yet started then fails), and collects the results with `finish`.
final class RequestSession: Sendable {
  /// What a step may use.
  struct Context: Sendable {
    var pid: pid_t
    /// `CHAOS_PORT` of the launch (nil when no port could be found).
    var port: Int?
    /// The launch's environment (with the `CHAOS_*` variables).
    var environment: [String: String]
    var eventsPath: String
    /// Where command output goes (the process's artifacts folder).
    var directory: String
    /// The scenario's folder: commands run there.
    var scenarioFolder: String
    /// The run's cutoff (`RunOptions.cutoff`): a command still running then is killed.
    var cutoff: UInt64? = nil
  }

  private struct State {
    var ended: ProcessEnd?
    var done = false
    var results: [RequestResult] = []
  }

  private let steps: [RequestStep]
  private let context: Context
  private let state = Mutex(State())

  init(steps: [RequestStep], context: Context) {
    self.steps = steps
    self.context = context
  }

  /// Starts the steps on their own thread.
  func start() {
    let thread = Thread { [self] in
      self.runAll()
      self.state.withLock { $0.done = true }
    }
    thread.name = "chaos-requests-\(context.pid)"
    thread.start()
  }

  /// Whether every step has run (or failed).
  var isDone: Bool { state.withLock { $0.done } }

  /// The target was reaped: steps that have not started will not run.
  func targetEnded(_ end: ProcessEnd) {
    state.withLock { $0.ended = end }
  }

  /// Waits until the steps are done (each is bounded by its own timeout once the target ended)
  /// and returns their results.
  func finish() -> [RequestResult] {
    while !isDone { usleep(2_000) }
    return state.withLock { $0.results }
  }

  private var ended: ProcessEnd? { state.withLock { $0.ended } }

  private func runAll() {
    for (offset, step) in steps.enumerated() {
      let index = offset + 1
      var result = RequestResult(
        index: index, line: step.line, label: step.label, ok: false, seconds: 0)
      if let reason = waitForEvent(step.afterEvent) {
        result.failure = reason
      } else {
        let started = MonotonicClock.nanoseconds()
        switch step.action {
        case .http(let http): run(http, into: &result)
        case .command(let command): run(command, index: index, into: &result)
        }
        result.seconds = Double(MonotonicClock.nanoseconds() - started) / 1e9
        result.ok = result.failure == nil
      }
      record(result, step: step)
      state.withLock { $0.results.append(result) }
    }
  }

  /// Nil once the event is in the events file; why the step cannot run otherwise.
  private func waitForEvent(_ name: String) -> String? {
    while true {
      let seen = EventPeek.contains(name, path: context.eventsPath)
      if let end = ended {
        return seen
          ? "not run: the target had already ended (\(end)) when it could start"
          : "not run: after_event '\(name)' never came (the target ended: \(end))"
      }
      if seen { return nil }
      if ChildRegistry.shared.isCancelled { return "not run: interrupted" }
      usleep(5_000)
    }
  }

  private func run(_ http: HTTPStep, into result: inout RequestResult) {
    guard let port = http.port ?? context.port else {
      result.failure = "no CHAOS_PORT: the harness found no free port"
      return
    }
    let started = MonotonicClock.nanoseconds()
    let retryUntil = started + UInt64(http.retryForSeconds * 1e9)
    var attempts = 0
    var outcome: Result<HTTPProbe.Response, HTTPProbe.Failure>
    while true {
      attempts += 1
      outcome = HTTPProbe.fetch(
        method: http.method, path: http.path, port: port, headers: http.headers, body: http.body,
        timeout: http.timeoutSeconds)
      let retry: Bool
      switch outcome {
      case .success(let response): retry = response.status != http.status
      case .failure(let failure): retry = failure.isConnectionFailure
      }
      let now = MonotonicClock.nanoseconds()
      guard retry, now < retryUntil, ended == nil, !ChildRegistry.shared.isCancelled else { break }
      usleep(UInt32(min(100_000, (retryUntil - now) / 1_000)))
    }
    result.attempts = attempts
    let elapsed = Double(MonotonicClock.nanoseconds() - started) / 1e9
    let retried =
      http.retryForSeconds > 0 ? " after \(Self.format(elapsed)) s (\(Self.plural(attempts, "attempt")))" : ""
    let targetEnded = ended.map { " (the target ended: \($0))" } ?? ""
    switch outcome {
    case .failure(let failure):
      result.failure = "\(failure)\(retried)\(targetEnded)"
    case .success(let response):
      result.status = response.status
      let body = String(decoding: response.body, as: UTF8.self)
      if response.status != http.status {
        result.failure =
          "expected status \(http.status), got \(response.status), body \(Self.quoted(body))\(retried)\(targetEnded)"
      } else if let expected = http.bodyEquals, body != expected {
        result.failure = "expected body \(Self.quoted(expected)), got \(Self.quoted(body)) (status \(response.status))"
      } else if let expected = http.bodyContains, !body.contains(expected) {
        result.failure =
          "expected body to contain \(Self.quoted(expected)), got \(Self.quoted(body)) (status \(response.status))"
      }
    }
  }

  private func run(_ command: CommandStep, index: Int, into result: inout RequestResult) {
    var environment = context.environment
    environment["CHAOS_PID"] = String(context.pid)
    let arguments = command.arguments.map { Self.expand($0, environment: environment) }
    guard let executable = resolve(arguments[0], environment: environment) else {
      result.failure = "'\(arguments[0])' not found in PATH (\(environment["PATH"] ?? ""))"
      return
    }
    let stdoutPath = context.directory + "/request-\(index).stdout.txt"
    let stderrPath = context.directory + "/request-\(index).stderr.txt"
    var launcher = ProcessLauncher(
      executable: executable, arguments: Array(arguments.dropFirst()), environment: environment,
      stdoutPath: stdoutPath, stderrPath: stderrPath, workingDirectory: context.scenarioFolder)
    launcher.user = command.user
    let end: ProcessEnd
    do {
      let pid = try launcher.spawn()
      var timeout = command.timeoutSeconds
      if let cutoff = context.cutoff {
        let now = MonotonicClock.nanoseconds()
        timeout = min(timeout, cutoff > now ? Double(cutoff - now) / 1e9 : 0.001)
      }
      end = ProcessLauncher.wait(pid, timeout: timeout)
    } catch {
      result.failure = "\(error)"
      return
    }
    result.end = end == .timedOut ? "timeout" : end.description
    let output = [stdoutPath, stderrPath].map { path in
      FileManager.default.contents(atPath: path).map { String(decoding: $0, as: UTF8.self) } ?? ""
    }.joined()
    if end == .timedOut {
      result.failure =
        "timed out after \(Self.format(command.timeoutSeconds)) s (its process group was killed), output \(Self.quoted(output))"
    } else if end != .exited(command.exitCode) {
      result.failure = "expected exit(\(command.exitCode)), got \(end), output \(Self.quoted(output))"
    } else if let expected = command.outputContains.map({ Self.expand($0, environment: environment) }),
      !output.contains(expected)
    {
      result.failure = "expected output to contain \(Self.quoted(expected)), got \(Self.quoted(output))"
    }
  }

  /// A path (relative to the scenario's folder) or a name looked up in the command's `PATH`.
  private func resolve(_ name: String, environment: [String: String]) -> String? {
    if name.contains("/") {
      return name.hasPrefix("/") ? name : context.scenarioFolder + "/" + name
    }
    return Self.searchPath(for: name, path: environment["PATH"])
  }

  /// The first executable `name` in the folders of `path` (default `/usr/bin:/bin`).
  static func searchPath(for name: String, path: String?) -> String? {
    let directories = (path ?? "/usr/bin:/bin").split(separator: ":").map(String.init)
    return directories.map { $0 + "/" + name }.first { FileManager.default.isExecutableFile(atPath: $0) }
  }

  /// `${CHAOS_PORT}`, `${CHAOS_STATE_DIR}`, `${CHAOS_PID}`, … in a command argument.
  static func expand(_ text: String, environment: [String: String]) -> String {
    guard text.contains("${CHAOS_") else { return text }
    var text = text
    for (name, value) in environment where name.hasPrefix("CHAOS_") {
      text = text.replacingOccurrences(of: "${\(name)}", with: value)
    }
    return text
  }

  /// Appends the result as a `request` event (one write, like the supervisor's events).
  private func record(_ result: RequestResult, step: RequestStep) {
    var object: [String: Any] = [
      "event": "request", "index": result.index, "ok": result.ok, "pid": Int(context.pid),
      "t": MonotonicClock.nanoseconds(), "source": "harness", "after_event": step.afterEvent,
    ]
    switch step.action {
    case .http(let http):
      object["method"] = http.method
      object["path"] = http.path
    case .command(let command):
      object["command"] = command.arguments
    }
    if let status = result.status { object["status"] = status }
    if let end = result.end { object["end"] = end }
    if let failure = result.failure { object["failure"] = failure }
    guard var data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]) else { return }
    data.append(0x0A)
    let file = open(context.eventsPath, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
    guard file >= 0 else { return }
    _ = data.withUnsafeBytes { write(file, $0.baseAddress, $0.count) }
    close(file)
  }

  static func format(_ seconds: Double) -> String { String(format: "%.1f", seconds) }

  static func plural(_ count: Int, _ noun: String) -> String { "\(count) \(noun)\(count == 1 ? "" : "s")" }

  /// A body or output for a message: quoted, escaped, at most 200 characters.
  static func quoted(_ text: String) -> String {
    let limit = 200
    let cut = text.count > limit ? String(text.prefix(limit)) : text
    var escaped = ""
    for scalar in cut.unicodeScalars {
      switch scalar {
      case "\"": escaped += "\\\""
      case "\\": escaped += "\\\\"
      case "\n": escaped += "\\n"
      case "\r": escaped += "\\r"
      case "\t": escaped += "\\t"
      case _ where scalar.value < 0x20: escaped += "\\u{\(String(scalar.value, radix: 16))}"
      default: escaped.unicodeScalars.append(scalar)
      }
    }
    return "\"" + escaped + (text.count > limit ? "…\" (\(text.utf8.count) bytes)" : "\"")
  }
}
