import Failpoints
import Foundation
import LaunchProtection
import Synchronization
import TestSupport

/// Simulates consecutive launches inside the test process: each launch gets its own
/// identity, and a launch "dies" simply by being abandoned unfinished (its simulated
/// process is reported dead), exactly as the next real launch would see a crashed one.
final class SimulatedLaunches: Sendable {
  let directory: TemporaryDirectory
  let bootID = Mutex("boot-A")
  let executable = Mutex<String?>("build-1")
  private let nextPID = Mutex<Int32>(10_000)
  private let alive = Mutex<Set<Int32>>([])
  let failpoints = FailpointRegistry()
  let durability: Durability

  init(durability: Durability = .processCrash) {
    directory = TemporaryDirectory("protection")
    self.durability = durability
  }

  var stateDirectory: String { directory.file("state") }

  func configuration() -> LaunchOrganizer.Configuration {
    let pid = nextPID.withLock { value in
      value += 1
      return value
    }
    let boot = bootID.withLock { $0 }
    var configuration = LaunchOrganizer.Configuration(stateDirectory: stateDirectory)
    configuration.failpoints = failpoints
    configuration.durability = durability
    configuration.ignoreTermination = false  // the test process must keep its own SIGTERM behaviour
    configuration.environment = LaunchEnvironment(
      current: { ProcessIdentity(pid: pid, startTime: UInt64(pid), bootID: boot) },
      isAlive: { [self] identity in self.alive.withLock { $0.contains(identity.pid) } },
      executableID: { [self] in self.executable.withLock { $0 } })
    return configuration
  }

  /// A new organizer for the next simulated launch.
  func organizer(observe events: Recorder? = nil) -> LaunchOrganizer {
    let organizer = LaunchOrganizer(configuration: configuration())
    if let events { organizer.observe { if let event = $0.event { events.record(event) } } }
    return organizer
  }

  /// Marks a simulated process as still running (a parallel launch).
  func keepAlive(_ pid: Int32) { _ = alive.withLock { $0.insert(pid) } }

  /// A simulated process kept alive dies.
  func dies(_ pid: Int32) { _ = alive.withLock { $0.remove(pid) } }

  /// The persisted state.
  func state() throws -> LaunchState? { try StateStore(directory: stateDirectory).read() }
}

/// Records observer events and closure calls in order.
final class Recorder: Sendable {
  private let entries = Mutex<[String]>([])

  func record(_ event: LaunchProtectionEvent) {
    let count = event.count ?? 0
    let level = event.level?.number ?? 0
    switch event.kind {
    case .launch:
      guard let decision = event.decision else { return }
      note("launch count=\(decision.count) mode=\(decision.mode)")
    case .protectEnter: note("protect_enter count=\(count) level=\(level)")
    case .protectFinish: note("protect_finish level=\(level)")
    case .lifeAction: note("life_action \(event.lifeActionKey ?? "") \(event.lifeActionOutcome?.rawValue ?? "")")
    case .stateProblem: note("state_problem \(event.stateProblem?.kind ?? "")")
    case .exceptionRecorded:
      guard let cause = event.cause else { return }
      note("exception \(cause.type) after_launch=\(cause.afterLaunch)")
    case .uncountedExit: note("uncounted_exit \(event.uncountedReason?.rawValue ?? "")")
    case .launchDeadlineExceeded: note("launch_hang \(event.phase?.step ?? "")")
    case .levelsExhausted:
      note("exhausted count=\(count) level=\(level) \(event.exhaustedAction.map { "\($0)" } ?? "")")
    default: note(event.kind.name)
    }
  }

  func note(_ entry: String) { entries.withLock { $0.append(entry) } }

  var all: [String] { entries.withLock { $0 } }

  func count(of entry: String) -> Int { all.filter { $0 == entry }.count }
}
