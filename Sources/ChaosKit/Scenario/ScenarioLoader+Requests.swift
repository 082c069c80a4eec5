import Failpoints
import Foundation
import Yams

/// A launch's `requests:`: HTTP requests and commands, with what each must answer.
extension ScenarioLoader {
  static func request(_ node: Node, reader: NodeReader) throws(ScenarioError) -> RequestStep {
    let map = try reader.mapping(node, keys: requestKeys, what: "request")
    var step = try requestAction(node, map: map, reader: reader)
    if let optional = map["optional"] { step.optional = try reader.bool(optional, what: "optional") }
    return step
  }

  static func requestAction(_ node: Node, map: [String: Node], reader: NodeReader) throws(ScenarioError)
    -> RequestStep
  {
    let afterEvent =
      try map["after_event"].map { node throws(ScenarioError) in try reader.string(node, what: "after_event") }
      ?? "launching_finished"
    let line = node.mark?.line ?? 0
    switch (map["http"], map["command"]) {
    case (let httpNode?, nil):
      for key in ["exit_code", "output_contains", "timeout", "user"] {
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
      var command = CommandStep(
        arguments: arguments, exitCode: Int32(exitCode),
        outputContains: try map["output_contains"].map { node throws(ScenarioError) in
          try reader.string(node, what: "output_contains")
        },
        timeoutSeconds: try map["timeout"].map { node throws(ScenarioError) in try reader.duration(node) } ?? 5)
      if let node = map["user"] { command.user = try runAs(node, reader: reader) }
      return RequestStep(line: line, afterEvent: afterEvent, action: .command(command))
    case (.some, .some):
      throw reader.error(node, "a request has exactly one of 'http' and 'command', not both")
    case (nil, nil):
      throw reader.error(node, "a request needs 'http' (a request to the target) or 'command' (an argv list)")
    }
  }

  static func http(_ node: Node, reader: NodeReader) throws(ScenarioError) -> HTTPStep {
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
}
