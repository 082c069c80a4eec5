import Foundation
import LaunchProtection

/// The `before:` actions, applied to a scenario's state directory.
enum Setup {
  static func apply(_ action: SetupAction, stateDirectory: String) throws(ScenarioError) {
    let statePath = stateDirectory + "/launch-state.json"
    func fail(_ message: String) -> ScenarioError {
      ScenarioError(path: statePath, line: 0, column: 0, message: message)
    }
    switch action {
    case .writeState(let text):
      try? FileManager.default.createDirectory(atPath: stateDirectory, withIntermediateDirectories: true)
      guard FileManager.default.createFile(atPath: statePath, contents: Data(text.utf8)) else {
        throw fail("cannot write the state file for write_state")
      }
    case .writeFile(let relative, let text):
      let path = stateDirectory + "/" + relative
      try? FileManager.default.createDirectory(
        atPath: URL(fileURLWithPath: path).deletingLastPathComponent().path, withIntermediateDirectories: true)
      guard FileManager.default.createFile(atPath: path, contents: Data(text.utf8)) else {
        throw ScenarioError(path: path, line: 0, column: 0, message: "cannot write the file for write_file")
      }
    case .editBootID(let bootID):
      try editLaunches(statePath, what: "edit_boot_id") { process in process.bootID = bootID }
    case .reusePid:
      try editLaunches(statePath, what: "reuse_pid") { process in process.pid = getpid() }
    case .unwritableStateDirectory:
      try? FileManager.default.removeItem(atPath: stateDirectory)
      guard FileManager.default.createFile(atPath: stateDirectory, contents: Data("not a directory\n".utf8)) else {
        throw fail("cannot replace the state directory with a file")
      }
    case .newBinary:
      break  // handled by the runner, which owns the target path
    case .command(let arguments, let user, let line):
      try run(arguments, as: user, stateDirectory: stateDirectory, line: line)
    }
  }

  /// Rewrites the `process` of every unfinished launch in the state file.
  private static func editLaunches(
    _ statePath: String, what: String, _ edit: (inout ProcessIdentity) -> Void
  ) throws(ScenarioError) {
    func fail(_ message: String) -> ScenarioError {
      ScenarioError(path: statePath, line: 0, column: 0, message: message)
    }
    let store = StateStore(directory: URL(fileURLWithPath: statePath).deletingLastPathComponent().path)
    guard var state = try? store.read(), !state.launchesInProgress.isEmpty else {
      throw fail("\(what) needs a state file with launchesInProgress (did an earlier launch run?)")
    }
    for index in state.launchesInProgress.indices { edit(&state.launchesInProgress[index].process) }
    if let problem = store.overwrite(state) { throw fail("cannot rewrite the state file for \(what): \(problem)") }
  }

  /// A `before:` command: run to its end (10 s at most), its output kept for the message.
  private static func run(_ arguments: [String], as user: RunAs?, stateDirectory: String, line: Int)
    throws(ScenarioError)
  {
    let output = NSTemporaryDirectory() + "chaos-before-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).txt"
    defer { unlink(output) }
    let environment = ScenarioRunner.inheritedEnvironment
    var launcher = ProcessLauncher(
      executable: KubeletSession.resolve(arguments[0], path: environment["PATH"]),
      arguments: Array(arguments.dropFirst()),
      environment: [
        "PATH": environment["PATH"] ?? "/usr/bin:/bin", "HOME": environment["HOME"] ?? "/root",
        "CHAOS_STATE_DIR": stateDirectory,
      ], stdoutPath: output, stderrPath: output)
    launcher.user = user
    func fail(_ message: String) -> ScenarioError {
      ScenarioError(path: stateDirectory, line: line, column: 0, message: message)
    }
    let end: ProcessEnd
    do {
      end = ProcessLauncher.wait(try launcher.spawn(), timeout: 10)
    } catch {
      throw fail("before command \(arguments): \(error)")
    }
    guard end == .exited(0) else {
      let said = FileManager.default.contents(atPath: output).map { String(decoding: $0, as: UTF8.self) } ?? ""
      throw fail("before command \(arguments) ended \(end): \(said.trimmingCharacters(in: .whitespacesAndNewlines))")
    }
  }
}
