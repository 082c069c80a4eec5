import Failpoints
import Foundation
import Synchronization

/// A long-lived process the harness runs beside the launches (a database, Prometheus, a
/// supervisor): started in its own process group, ready once its check passes, stopped with a
/// signal then SIGKILL, and checked to leave no process behind. Not tied to scenarios: any
/// harness supervisor may run one.
///
/// While it runs it is in ``ServiceRegistry``, so an interrupt (`ChildRegistry.cancelAll`)
/// kills its whole process tree, including descendants that left its group (`setsid`).
package final class ServiceProcess: Sendable {
  /// Why a service did not start or become ready.
  package struct Failure: Error, CustomStringConvertible {
    package var description: String
  }

  /// How a stop went.
  package struct Stopped: Sendable {
    /// How the process ended (`timedOut`: it outlived the grace and was SIGKILLed).
    package var end: ProcessEnd
    /// Processes of its tree that were still there after it ended: each was SIGKILLed.
    package var leftovers: [ProcessStamp]
  }

  private struct State {
    var pid: pid_t?
    /// The process and its descendants, as last read (at ready, refreshed at stop).
    var tree: [ProcessStamp] = []
  }

  /// The service's name, for messages.
  package let name: String
  /// Its check; nil: ready once spawned.
  package let readiness: ReadinessCheck?
  /// The signal a stop sends first (SIGTERM; PostgreSQL's fast shutdown is SIGINT).
  package let stopSignal: Int32
  /// Seconds a stop waits after `stopSignal` before SIGKILL.
  package let stopGrace: Double
  private let launcher: Mutex<ProcessLauncher>
  private let state = Mutex(State())

  /// A service that runs `launcher`'s command (not started yet).
  package init(
    name: String, launcher: ProcessLauncher, readiness: ReadinessCheck?, stopSignal: Int32 = SIGTERM,
    stopGrace: Double = 10
  ) {
    self.name = name
    self.launcher = Mutex(launcher)
    self.readiness = readiness
    self.stopSignal = stopSignal
    self.stopGrace = stopGrace
  }

  /// The running process's pid; nil when stopped.
  package var pid: pid_t? { state.withLock { $0.pid } }
  /// The process tree as last read.
  package var tree: [ProcessStamp] { state.withLock { $0.tree } }

  /// Starts the process and returns once its check passes. Fails (and leaves nothing running)
  /// when it ends first or is not ready within `readyWithin` seconds; the message ends with
  /// the last lines of its standard error.
  @discardableResult
  package func start(readyWithin: Double) throws(Failure) -> pid_t {
    let launcher = launcher.withLock { $0 }
    let pid: pid_t
    do { pid = try launcher.spawn() } catch { throw Failure(description: "service \(name): \(error)") }
    state.withLock { $0 = State(pid: pid, tree: []) }
    ServiceRegistry.shared.add(self)
    let deadline = MonotonicClock.nanoseconds() + UInt64(max(0, readyWithin) * 1e9)
    var why = "not checked"
    while true {
      var status: Int32 = 0
      if waitpid(pid, &status, WNOHANG) == pid {
        kill(-pid, SIGKILL)
        ChildRegistry.shared.unregister(pid)
        forget()
        throw failure("ended before it was ready: \(ProcessEnd(waitStatus: status))", launcher: launcher)
      }
      guard let readiness else { break }
      guard let problem = readiness.probe() else { break }
      why = problem
      if MonotonicClock.nanoseconds() > deadline || ChildRegistry.shared.isCancelled {
        _ = stop()
        throw failure("not ready within \(readyWithin) s (\(readiness): \(why))", launcher: launcher)
      }
      usleep(50_000)
    }
    state.withLock { $0.tree = ProcessTree.descendants(of: pid) }
    return pid
  }

  /// Sends `stopSignal`, waits up to `stopGrace` seconds (then SIGKILLs the group), reaps it,
  /// and SIGKILLs what is left of its tree (waiting up to a second for it to go by itself).
  /// Nil when it was not running.
  @discardableResult
  package func stop() -> Stopped? {
    guard let pid = pid else { return nil }
    let before = state.withLock { $0.tree }
    // Those that joined since the check (a database's backends), and those that were there.
    var tree = ProcessTree.descendants(of: pid)
    for stamp in before where !tree.contains(stamp) { tree.append(stamp) }
    kill(pid, stopSignal)
    let end = ProcessLauncher.wait(pid, timeout: stopGrace, ticking: false)
    let others = tree.filter { $0.pid != pid }
    let deadline = MonotonicClock.nanoseconds() + 1_000_000_000
    while others.contains(where: \.isAlive), MonotonicClock.nanoseconds() < deadline { usleep(20_000) }
    let leftovers = ProcessTree.killLeft(others)
    forget()
    return Stopped(end: end, leftovers: leftovers)
  }

  /// The tree now (for an interrupt, which kills it without waiting).
  package func currentTree() -> [ProcessStamp] {
    guard let pid = pid else { return [] }
    var tree = ProcessTree.descendants(of: pid)
    for stamp in state.withLock({ $0.tree }) where !tree.contains(stamp) { tree.append(stamp) }
    return tree
  }

  private func forget() {
    state.withLock { $0 = State() }
    ServiceRegistry.shared.remove(self)
  }

  private func failure(_ what: String, launcher: ProcessLauncher) -> Failure {
    let tail = ScenarioRunner.tail(of: launcher.stderrPath, lines: 6)
    let output = tail.isEmpty ? "" : "\n  stderr (last lines):\n" + tail.map { "    " + $0 }.joined(separator: "\n")
    return Failure(description: "service \(name) (\(launcher.executable)): \(what)\(output)")
  }
}

/// The services running now, so that an interrupt kills their whole trees.
package final class ServiceRegistry: Sendable {
  /// The process-wide registry.
  package static let shared = ServiceRegistry()

  private let services = Mutex<[ObjectIdentifier: ServiceProcess]>([:])
  /// Directories the services use, removed by an interrupt too (`chaos` exits right after it).
  private let directories = Mutex<Set<String>>([])

  func add(_ service: ServiceProcess) { services.withLock { $0[ObjectIdentifier(service)] = service } }

  func remove(_ service: ServiceProcess) { _ = services.withLock { $0.removeValue(forKey: ObjectIdentifier(service)) } }

  /// Notes a directory to remove on an interrupt, until `release`.
  package func own(directory: String) { _ = directories.withLock { $0.insert(directory) } }

  /// The directory was removed by its owner.
  package func release(directory: String) { _ = directories.withLock { $0.remove(directory) } }

  /// SIGKILLs every process of every running service's tree (the leaders are reaped by
  /// `ChildRegistry.cancelAll`, which calls this first), then removes the services'
  /// directories. Returns the processes killed.
  @discardableResult
  package func killAll() -> [ProcessStamp] {
    let running = services.withLock { Array($0.values) }
    let trees = running.flatMap { $0.currentTree() }
    let killed = ProcessTree.killLeft(trees)
    // The files go now; a process killed a moment ago may still hold some open, which unlinking allows.
    for directory in directories.withLock({ $0 }) { _ = FileTree.remove(directory) }
    return killed
  }
}
