import Foundation

/// One entry of `requests:`: once the target emitted `afterEvent`, an HTTP request to it or a
/// command, whose result is asserted.
public struct RequestStep: Sendable, Equatable {
  /// What the step does.
  public enum Action: Sendable, Equatable {
    /// An HTTP/1.1 request to the target on 127.0.0.1.
    case http(HTTPStep)
    /// A command run with the launch's environment, in the scenario's folder.
    case command(CommandStep)
  }

  /// Line of the entry in the file.
  public var line: Int
  /// The event the target must have emitted first (default `launching_finished`).
  public var afterEvent: String
  /// The request or command.
  public var action: Action
  /// `optional: true`: the step is made and its result recorded, but a failed assertion does
  /// not fail the launch (a workload sent to reach code, as `chaos explore --workload` writes).
  public var optional = false

  /// Creates a step.
  public init(line: Int = 0, afterEvent: String = "launching_finished", action: Action) {
    self.line = line
    self.afterEvent = afterEvent
    self.action = action
  }

  /// `GET /health` or the command's argv, for messages.
  public var label: String {
    switch action {
    case .http(let http): "\(http.method) \(http.path)"
    case .command(let command): command.arguments.map(RequestStep.shellQuoted).joined(separator: " ")
    }
  }

  static func shellQuoted(_ word: String) -> String {
    let plain = !word.isEmpty && word.allSatisfy { $0.isLetter || $0.isNumber || "-_./=:,+@%${}".contains($0) }
    return plain ? word : "'" + word.replacingOccurrences(of: "'", with: "'\\''") + "'"
  }
}

/// `http:` of a request step.
public struct HTTPStep: Sendable, Equatable {
  /// `GET`, `POST`, …
  public var method: String
  /// The request target, starting with `/`.
  public var path: String
  /// The request body (sent with a `Content-Length`).
  public var body: String?
  /// Extra request headers.
  public var headers: [String: String]
  /// The port on 127.0.0.1; nil: the launch's `CHAOS_PORT`.
  public var port: Int?
  /// The expected status (default 200).
  public var status: Int
  /// Text the response body must contain.
  public var bodyContains: String?
  /// The exact response body expected.
  public var bodyEquals: String?
  /// Per attempt: connect, send and read the whole response (default 2 s).
  public var timeoutSeconds: Double
  /// Retry failed connections and other statuses for this long (default 0: one attempt).
  public var retryForSeconds: Double

  /// Creates a step; the defaults are the loader's.
  public init(
    method: String = "GET", path: String, body: String? = nil, headers: [String: String] = [:], port: Int? = nil,
    status: Int = 200, bodyContains: String? = nil, bodyEquals: String? = nil, timeoutSeconds: Double = 2,
    retryForSeconds: Double = 0
  ) {
    self.method = method
    self.path = path
    self.body = body
    self.headers = headers
    self.port = port
    self.status = status
    self.bodyContains = bodyContains
    self.bodyEquals = bodyEquals
    self.timeoutSeconds = timeoutSeconds
    self.retryForSeconds = retryForSeconds
  }
}

/// `command:` of a request step.
public struct CommandStep: Sendable, Equatable {
  /// argv; `${CHAOS_PORT}`, `${CHAOS_STATE_DIR}` and `${CHAOS_PID}` are replaced.
  public var arguments: [String]
  /// The expected exit status (default 0).
  public var exitCode: Int32
  /// Text its standard output or error must contain (`${CHAOS_…}` replaced as in the argv).
  public var outputContains: String?
  /// Past it the command's process group is SIGKILLed and the step fails (default 5 s).
  public var timeoutSeconds: Double
  /// The user it runs as (`user:`, e.g. another user planting a file); nil: the harness's own.
  public var user: RunAs? = nil

  /// Creates a step; the defaults are the loader's.
  public init(arguments: [String], exitCode: Int32 = 0, outputContains: String? = nil, timeoutSeconds: Double = 5) {
    self.arguments = arguments
    self.exitCode = exitCode
    self.outputContains = outputContains
    self.timeoutSeconds = timeoutSeconds
  }
}
