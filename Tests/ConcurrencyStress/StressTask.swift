import ChaosProbe
import LaunchProtection
import LaunchProtectionServer
import Logging
import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// What went wrong, from any task.
final class StressFailures: Sendable {
  private let list = Mutex<[String]>([])
  func add(_ problem: String) { list.withLock { $0.append(problem) } }
  var all: [String] { list.withLock { $0 } }
}

/// One task of a round. Tasks take turns at the entry points by their index, so that every
/// round has each of them called by at least two tasks at once, and two organizers share one
/// state directory (`shared`).
struct StressTask: Sendable {
  let round: Int
  let task: Int
  let failures: StressFailures

  /// The state directories of a round, by what their task does with its launch.
  enum Role: Int, CaseIterable {
    case server, closures, async, stop
  }

  static func role(of task: Int) -> Role { Role(rawValue: task % Role.allCases.count)! }

  static func directory(_ root: String, task: Int) -> String {
    role(of: task) == .async ? "\(root)/shared" : "\(root)/task-\(task)"
  }

  func run(directory root: String) async {
    let directory = Self.directory(root, task: task)
    switch Self.role(of: task) {
    case .server: await runServer(directory)
    case .closures: runClosures(directory)
    case .async: await runAsync(directory)
    case .stop: runStop(directory)
    }
  }

  /// `ServerLaunch` as an app's test builds it: crash capture on.
  func runServer(_ directory: String) async {
    let server = ServerLaunch(stateDirectory: directory, launchDeadline: .seconds(120), logger: quiet)
    do {
      try await server.launch { _ in }
      let answer = try await server.waitForDependency("db") { () async throws -> Int in 42 }
      if answer != 42 { fail("waitForDependency returned \(answer), expected 42") }
      if server.status.launchMode != .normal { fail("status \(server.status.launchMode), expected normal") }
      await server.markLaunchingFinished()
      await server.markLaunchingFinished()  // a second call does nothing
      if !server.status.launchFinished { fail("status \(server.status) after markLaunchingFinished") }
    } catch {
      fail("ServerLaunch.launch threw \(error)")
    }
  }

  /// The closure API, with the probe attached and crash capture installed by hand.
  private func runClosures(_ directory: String) {
    let organizer = LaunchOrganizer(stateDirectory: directory)
    let seen = Atomic<Int>(0)
    organizer.observe { _ in seen.add(1, ordering: .relaxed) }
    ChaosProbe.attach(organizer)
    var options = CrashCapture.Options()
    options.reportDirectory = directory
    do { try CrashCapture.install(options) } catch { fail("CrashCapture.install threw \(error)") }
    let ran = Atomic<Bool>(false)
    organizer.finishLaunching(
      policy: .threshold(2), launch: { ran.store(true, ordering: .relaxed) },
      protect: { _ in fail("protect mode on a fresh directory") })
    if !ran.load(ordering: .relaxed) { fail("the closure launch did not run") }
    organizer.launchingFinished()
    organizer.launchingFinished()
    if !organizer.status.launchFinished { fail("status \(organizer.status) after launchingFinished") }
    if seen.load(ordering: .relaxed) == 0 { fail("observe saw no event") }
  }

  /// The async launch, two organizers on one state directory (tasks of this role share it).
  private func runAsync(_ directory: String) async {
    let organizer = LaunchOrganizer(stateDirectory: directory)
    do {
      let outcome = try await organizer.launch(policy: .threshold(2)) { _ in fail("repair on a fresh directory") }
      if outcome != .normal { fail("async launch \(outcome), expected normal") }
      await organizer.markLaunchingFinished()
    } catch {
      fail("async launch threw \(error)")
    }
  }

  /// A launch stopped before it finished: recorded, never counted.
  private func runStop(_ directory: String) {
    let organizer = LaunchOrganizer(stateDirectory: directory)
    organizer.finishLaunching(policy: .threshold(1), launch: {}, protect: { _ in fail("protect mode") })
    organizer.stopRequested()
    organizer.stopRequested()
    _ = organizer.status
  }

  private func fail(_ problem: String) { failures.add("round \(round), task \(task): \(problem)") }

  /// After a round: every directory's state says what its launches did. Nothing counted (no
  /// launch died), no finished launch left in progress, the stopped one marked stopped.
  static func checkRound(round: Int, directory root: String, width: Int, failures: StressFailures) async {
    var directories: Set<String> = []
    for task in 0..<width { directories.insert(directory(root, task: task)) }
    for directory in directories.sorted() {
      let name = String(directory.split(separator: "/").last ?? "")
      let stopped = name.hasPrefix("task-") && role(of: Int(name.dropFirst(5)) ?? 0) == .stop
      do {
        guard let state = try StateStore(directory: directory).read() else {
          failures.add("round \(round), \(name): no state file, expected one")
          continue
        }
        if state.consecutiveCrashes != 0 {
          failures.add("round \(round), \(name): count \(state.consecutiveCrashes), expected 0 (nothing crashed)")
        }
        let open = state.launchesInProgress
        if stopped {
          if open.count != 1 || open.first?.stopRequestDate == nil {
            failures.add("round \(round), \(name): \(open.count) launches in progress, expected 1 with its stop")
          }
        } else if !open.isEmpty {
          failures.add("round \(round), \(name): \(open.count) launches still in progress after they finished")
        }
      } catch {
        failures.add("round \(round), \(name): state unreadable: \(error)")
      }
    }
  }

  /// A real SIGSEGV after every install: the shared handler must still record it and let the
  /// process die by it (a handler chained to itself would loop; a hook wrapped twice recurse).
  static func crashForReal() -> Never {
    // The latest install's destinations are in force: one more, naming the file to check.
    if let path = getenv("STRESS_CRASH_EVENTS").map({ String(cString: $0) }) {
      var options = CrashCapture.Options()
      options.eventsFileDescriptor = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
      do { try CrashCapture.install(options) } catch { fatalError("CrashCapture.install threw \(error)") }
    }
    let address = UnsafeMutablePointer<Int>(bitPattern: 8)!
    address.pointee = 1
    fatalError("unreachable: the store to address 8 did not fault")
  }
}
