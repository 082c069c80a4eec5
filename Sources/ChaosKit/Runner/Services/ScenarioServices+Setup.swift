import Foundation

/// What a run's services need before they start: ports, directories, setup commands.
extension ScenarioServices {
  /// Binds a free port on 127.0.0.1 with SO_REUSEADDR, not listening, and keeps the socket:
  /// the service binds the same port beside it (PostgreSQL and Go servers set SO_REUSEADDR),
  /// and while the service is down no other program is given the port.
  func holdPort(_ spec: ServiceSpec, scenario: Scenario) throws(ScenarioError) -> Int {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    var one: Int32 = 1
    var address = LoopbackAddress(port: 0)
    let bound =
      fd >= 0 && setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size)) == 0
      && address.withSocketAddress { bind(fd, $0, $1.pointee) == 0 && getsockname(fd, $0, $1) == 0 }
    guard bound else {
      let reason = String(cString: strerror(errno))
      if fd >= 0 { close(fd) }
      throw ScenarioError(
        path: scenario.path, line: spec.line, column: 1, message: "service \(spec.name): no free port: \(reason)")
    }
    holders.append(fd)
    return address.port
  }

  /// A new directory in /tmp, 0700, owned by the service's user (a database's data directory
  /// must be; the work directory may be closed to that user). Removed at the end of the run.
  func privateDirectory(_ spec: ServiceSpec, scenario: Scenario) throws(ScenarioError) -> String {
    var template = Array("/tmp/chaos-service-\(spec.name)-XXXXXX".utf8CString)
    guard let made = mkdtemp(&template) else {
      throw ScenarioError(
        path: scenario.path, line: spec.line, column: 1,
        message: "service \(spec.name): cannot make its directory in /tmp: \(String(cString: strerror(errno)))")
    }
    let path = String(cString: made)
    directories.append(path)
    ServiceRegistry.shared.own(directory: path)
    if let user = spec.user, chown(path, user.uid, user.gid) != 0 {
      throw ScenarioError(
        path: scenario.path, line: spec.line, column: 1,
        message: "service \(spec.name): cannot give \(path) to \(user): \(String(cString: strerror(errno)))")
    }
    return path
  }

  /// Runs one setup command to its end (60 s at most); a failure names the command and shows
  /// its output.
  func runSetup(
    _ words: [String], number: Int, spec: ServiceSpec, environment: [String: String], logs: String,
    scenario: Scenario
  ) throws(ScenarioError) {
    let argv = words.map { RequestSession.expand($0, environment: environment) }
    var launcher = ProcessLauncher(
      executable: try executable(argv[0], spec: spec, environment: environment, scenario: scenario),
      arguments: Array(argv.dropFirst()), environment: environment, stdoutPath: logs + "/setup-\(number).stdout.txt",
      stderrPath: logs + "/setup-\(number).stderr.txt",
      workingDirectory: URL(fileURLWithPath: scenario.path).deletingLastPathComponent().path)
    launcher.user = spec.user
    let end: ProcessEnd
    do { end = ProcessLauncher.wait(try launcher.spawn(), timeout: 60) } catch {
      throw ScenarioError(path: scenario.path, line: spec.line, column: 1, message: "service \(spec.name): \(error)")
    }
    guard end == .exited(0) else {
      let output =
        ScenarioRunner.tail(of: launcher.stderrPath, lines: 6)
        + ScenarioRunner.tail(
          of: launcher.stdoutPath, lines: 3)
      throw ScenarioError(
        path: scenario.path, line: spec.line, column: 1,
        message:
          "service \(spec.name): setup command \(number) (\(argv.map(RequestStep.shellQuoted).joined(separator: " "))) "
          + "ended \(end)\n" + output.map { "    " + $0 }.joined(separator: "\n"))
    }
  }

  /// A path (relative to the scenario's folder) or a name looked up in `PATH`.
  func executable(
    _ name: String, spec: ServiceSpec, environment: [String: String], scenario: Scenario
  ) throws(ScenarioError) -> String {
    let folder = URL(fileURLWithPath: scenario.path).deletingLastPathComponent().path
    if name.contains("/") { return name.hasPrefix("/") ? name : folder + "/" + name }
    guard let found = RequestSession.searchPath(for: name, path: environment["PATH"]) else {
      throw ScenarioError(
        path: scenario.path, line: spec.line, column: 1,
        message: "service \(spec.name): '\(name)' not found in PATH (\(environment["PATH"] ?? ""))")
    }
    return found
  }
}
