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
}
