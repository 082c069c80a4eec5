import Failpoints
import Foundation
import LaunchTasks
import Synchronization

/// The daemon's data: an in-memory map rebuilt from the journal at launch, served over a
/// Unix socket, every change appended to the journal.
final class KeyValueStore: Sendable {
  let dataDirectory: String
  private let state = Mutex(State())

  private struct State {
    var values: [String: String] = [:]
    var socketPath: String?
    var listener: Listener?
  }

  init(dataDirectory: String) {
    self.dataDirectory = dataDirectory
  }

  var journalPath: String { dataDirectory + "/journal.log" }
  var isServing: Bool { state.withLock { $0.listener != nil } }

  /// load-config → replay-journal → open-listener: each a task, so a crash names its task.
  func launchWorkflow() -> Workflow {
    let workflow = Workflow()
    workflow.addTask(ClosureTask("load-config", placement: .launchingThread) { _ in self.loadConfig() })
    workflow.addTask(ClosureTask("replay-journal", placement: .launchingThread) { _ in self.replayJournal() })
    workflow.addTask(
      ClosureTask("open-listener", placement: .launchingThread) { context in
        do { try self.openListener() } catch { context.fail(error) }
      })
    return workflow
  }

  /// `kvd.conf` lines `socket=<path>`; the default socket is `kvd.sock` in the data directory,
  /// which becomes the working directory (a socket path must fit in 108 bytes; a relative one does).
  func loadConfig() {
    try? FileManager.default.createDirectory(atPath: dataDirectory, withIntermediateDirectories: true)
    _ = FileManager.default.changeCurrentDirectoryPath(dataDirectory)
    var socketPath = "kvd.sock"
    let text = (try? String(contentsOfFile: dataDirectory + "/kvd.conf", encoding: .utf8)) ?? ""
    for line in text.split(separator: "\n") where line.hasPrefix("socket=") {
      socketPath = String(line.dropFirst("socket=".count))
    }
    state.withLock { $0.socketPath = socketPath }
  }

  /// Rebuilds the map from the journal (`set <key> <value>` / `del <key>` lines).
  func replayJournal() {
    let text = (try? String(contentsOfFile: journalPath, encoding: .utf8)) ?? ""
    let values = Journal.replay(text)
    state.withLock { $0.values = values }
    log("replayed \(values.count) keys")
  }

  func openListener() throws {
    let path = state.withLock { $0.socketPath } ?? "kvd.sock"
    let listener = try Listener(path: path) { [self] request in handle(request) }
    state.withLock { $0.listener = listener }
  }

  /// The repair: a journal that crashes replay is moved aside (kept for a human), and the
  /// daemon starts empty rather than not at all.
  func quarantineJournal() {
    guard FileManager.default.fileExists(atPath: journalPath) else { return }
    let aside = journalPath + ".quarantined-\(Int(Date().timeIntervalSince1970))"
    try? FileManager.default.moveItem(atPath: journalPath, toPath: aside)
    log("repair: journal quarantined to \(aside)")
  }

  func stop() {
    state.withLock { $0.listener }?.close()
  }

  /// `GET k` → value or `NOT_FOUND`; `SET k v` and `DEL k` → `OK` (journaled first).
  func handle(_ request: String) -> String {
    // Failpoint `kvd.request`: a fault while serving (`return(EIO)` fails the request).
    if case .fail = FailpointRegistry.shared.evaluate("kvd.request") { return "ERROR injected I/O error" }
    let words = request.split(separator: " ", maxSplits: 2).map(String.init)
    switch (words.first?.uppercased(), words.count) {
    case ("GET", 2):
      return state.withLock { $0.values[words[1]] } ?? "NOT_FOUND"
    case ("SET", 3):
      Journal.append("set \(words[1]) \(words[2])", to: journalPath)
      state.withLock { $0.values[words[1]] = words[2] }
      return "OK"
    case ("DEL", 2):
      Journal.append("del \(words[1])", to: journalPath)
      _ = state.withLock { $0.values.removeValue(forKey: words[1]) }
      return "OK"
    default:
      return "ERROR usage: GET k | SET k v | DEL k"
    }
  }
}

func log(_ message: String) {
  FileHandle.standardError.write(Data("kvd: \(message)\n".utf8))
}
