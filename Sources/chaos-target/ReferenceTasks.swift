import LaunchTasks

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// The reference app's launch: a realistic graph of named tasks. Each task type evaluates its
/// own failpoint (`task.<name>`) inside its own `run`, so a fault's backtrace names the task's
/// type (`NetworkTask.run(_:)`), as a real crash in that task would. Release builds would merge
/// these similar bodies into one (LLVM's merge-functions pass) and the backtrace would name
/// whichever type survived; Package.swift turns that pass off for this target.
class ReferenceTask: LaunchTask, @unchecked Sendable {
  let name: String
  let runsAfter: [String]
  let priority: Int
  let placement: TaskPlacement
  /// Extra work time, to make timelines and overlaps visible (`sleep_ms` override).
  let workMilliseconds: Int
  let dataDirectory: String
  /// Runs first in `begin`, before the failpoint: the wait for a dependency (`dependency.task`).
  var beforeRun: (@Sendable () -> Void)?

  required init(
    _ name: String, after: [String], priority: Int, placement: TaskPlacement, work: Int, dataDirectory: String
  ) {
    self.name = name
    self.runsAfter = after
    self.priority = priority
    self.placement = placement
    self.workMilliseconds = work
    self.dataDirectory = dataDirectory
  }

  func run(_ context: TaskContext) {}

  /// Evaluates the task's failpoint; false when it made the task fail (`return(errno)`).
  func begin(_ context: TaskContext) -> Bool {
    beforeRun?()
    guard let code = context.evaluateFailpoint() else { return true }
    context.fail(POSIXError(POSIXErrorCode(rawValue: code) ?? .EIO))
    return false
  }

  func work() {
    if workMilliseconds > 0 { usleep(UInt32(workMilliseconds) * 1000) }
  }
}

final class ConfigTask: ReferenceTask, @unchecked Sendable {
  override func run(_ context: TaskContext) {
    guard begin(context) else { return }
    context.parameters["config"] = "loaded"
    work()
  }
}

final class DatabaseTask: ReferenceTask, @unchecked Sendable {
  override func run(_ context: TaskContext) {
    guard begin(context) else { return }
    context.parameters["database"] = "open"
    work()
  }
}

final class NetworkTask: ReferenceTask, @unchecked Sendable {
  override func run(_ context: TaskContext) {
    guard begin(context) else { return }
    context.parameters["network"] = "reachable"
    work()
  }
}

final class AuthTask: ReferenceTask, @unchecked Sendable {
  override func run(_ context: TaskContext) {
    guard begin(context) else { return }
    context.parameters["session"] = "authenticated"
    work()
  }
}

/// Writes the cache file that the `clear-cache` repair deletes.
final class CacheWarmupTask: ReferenceTask, @unchecked Sendable {
  override func run(_ context: TaskContext) {
    guard begin(context) else { return }
    _ = FileManager.default.createFile(atPath: dataDirectory + "/cache.bin", contents: Data(repeating: 7, count: 4096))
    work()
  }
}

final class AnalyticsTask: ReferenceTask, @unchecked Sendable {
  override func run(_ context: TaskContext) {
    guard begin(context) else { return }
    context.parameters["analytics"] = "started"
    work()
  }
}

final class UITask: ReferenceTask, @unchecked Sendable {
  override func run(_ context: TaskContext) {
    guard begin(context) else { return }
    context.parameters["ui"] = "presented"
    work()
  }
}

/// A task added through `CHAOS_APP` (`extra_tasks`).
final class ExtraTask: ReferenceTask, @unchecked Sendable {
  override func run(_ context: TaskContext) {
    guard begin(context) else { return }
    context.parameters[name] = "done"
    work()
  }
}

/// The default graph: config → {database, network, analytics}; {network, database} → auth;
/// database → cache-warmup; {auth, cache-warmup} → ui.
enum ReferenceGraph {
  struct Declaration {
    var name: String
    var after: [String]
    var placement: TaskPlacement
    var priority: Int
    var type: ReferenceTask.Type
  }

  static let declarations: [Declaration] = [
    Declaration(name: "config", after: [], placement: .launchingThread, priority: 100, type: ConfigTask.self),
    Declaration(name: "database", after: ["config"], placement: .concurrent, priority: 200, type: DatabaseTask.self),
    Declaration(name: "network", after: ["config"], placement: .concurrent, priority: 200, type: NetworkTask.self),
    Declaration(
      name: "auth", after: ["network", "database"], placement: .concurrent, priority: 300, type: AuthTask.self),
    Declaration(
      name: "cache-warmup", after: ["database"], placement: .concurrent, priority: 400, type: CacheWarmupTask.self),
    Declaration(name: "analytics", after: ["config"], placement: .concurrent, priority: 900, type: AnalyticsTask.self),
    Declaration(
      name: "ui", after: ["auth", "cache-warmup"], placement: .launchingThread, priority: 500, type: UITask.self),
  ]
}
