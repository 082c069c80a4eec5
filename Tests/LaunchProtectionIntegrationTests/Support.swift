import Foundation
import LaunchProtection
import Logging
import ServiceLifecycle
import Synchronization

/// A state directory removed when released, with organizers whose simulated processes have
/// their own pids and are reported dead (so an abandoned launch counts like a crash).
final class SimulatedServer: Sendable {
  let stateDirectory: String
  private let nextPID = Mutex<Int32>(20_000)

  init() {
    var template = Array("\(NSTemporaryDirectory())/integration-XXXXXX".utf8CString)
    stateDirectory = template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)) }
  }

  deinit { try? FileManager.default.removeItem(atPath: stateDirectory) }

  /// A new organizer for the next simulated launch. `ignoreTermination` is off so that the
  /// test process keeps its own SIGTERM behaviour; `stopRequested()` records all the same.
  func organizer(deadline: Duration? = nil) -> LaunchOrganizer {
    let pid = nextPID.withLock { value in
      value += 1
      return value
    }
    var configuration = LaunchOrganizer.Configuration(stateDirectory: stateDirectory)
    configuration.ignoreTermination = false
    configuration.notifyReady = false
    configuration.launchDeadline = deadline
    configuration.environment = LaunchEnvironment(
      current: { ProcessIdentity(pid: pid, startTime: UInt64(pid), bootID: "boot") },
      isAlive: { _ in false }, executableID: { "build-1" })
    return LaunchOrganizer(configuration: configuration)
  }

  /// The persisted state.
  func state() throws -> LaunchState? { try StateStore(directory: stateDirectory).read() }
}

/// A service that says when it started and runs until graceful shutdown or cancellation.
struct DummyService: Service {
  let started: AsyncStream<Void>.Continuation

  func run() async throws {
    started.yield()
    try? await gracefulShutdown()
  }
}

/// A swift-log handler that keeps every message with its level and metadata.
struct CapturingLogHandler: LogHandler {
  /// One logged message.
  struct Entry: Sendable {
    var level: Logger.Level
    var message: String
    var metadata: Logger.Metadata
    var source: String
  }

  final class Storage: Sendable {
    let entries = Mutex<[Entry]>([])
    var all: [Entry] { entries.withLock { $0 } }
  }

  let storage: Storage
  var metadata: Logger.Metadata = [:]
  var logLevel: Logger.Level = .trace

  subscript(metadataKey key: String) -> Logger.Metadata.Value? {
    get { metadata[key] }
    set { metadata[key] = newValue }
  }

  func log(event: LogEvent) {
    var merged = metadata
    if let extra = event.metadata { merged.merge(extra) { _, new in new } }
    let entry = Entry(level: event.level, message: "\(event.message)", metadata: merged, source: event.source)
    storage.entries.withLock { $0.append(entry) }
  }
}
