import Failpoints
import Foundation
import Synchronization

/// The scenario's `dependency:`: a real TCP listener on 127.0.0.1 for the whole run, at a port
/// that stays the same (`CHAOS_DEPENDENCY_PORT`). Up, it accepts every connection, writes
/// `ok\n` and closes it; down, nothing listens and a connect is refused (ECONNREFUSED).
///
/// Down, the listening socket is really closed; the port is held by a socket that is bound
/// (SO_REUSEADDR, SO_REUSEPORT) but not listening, which the kernel answers with a reset as for a closed
/// port, so no other program (a launch's `CHAOS_PORT`) is given the port meanwhile; up, that
/// socket listens again. Every socket call runs on the listener's one thread; the runner asks
/// for a state with `set` and gets it once the thread made it so. `close` ends the thread
/// and closes every descriptor.
package final class DependencyServer: Sendable {
  /// Why the listener cannot do what was asked.
  package struct Failure: Error, CustomStringConvertible {
    package var description: String
  }

  private struct State {
    /// The state asked for and the generation of that request.
    var wanted = DependencyState.up
    var generation = 0
    /// The generation the thread has made so, and what went wrong doing it.
    var applied = 0
    var problem: String?
    /// With `down_for`: when to listen again (monotonic ns) and the events files to tell.
    var reopenAt: UInt64?
    var eventsPaths: [String] = []
    var stopping = false
    /// Connections accepted (answered `ok`) so far.
    var accepted = 0
  }

  /// The dependency's name, for events and messages.
  package let name: String
  /// The port on 127.0.0.1, the same for the whole run.
  package let port: Int
  private let state = Mutex(State())
  private let changed = DispatchSemaphore(value: 0)
  private let finished = DispatchSemaphore(value: 0)
  private let wakeRead: Int32
  private let wakeWrite: Int32
  /// Owned by the thread once it started.
  private let firstSocket: Int32

  /// Binds a free port and starts the thread, listening (up).
  package init(name: String) throws(Failure) {
    var fds: [Int32] = [-1, -1]
    guard pipe(&fds) == 0 else { throw Failure(description: Self.systemError("pipe")) }
    for fd in fds {
      _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
      _ = fcntl(fd, F_SETFL, O_NONBLOCK)
    }
    let bound: (fd: Int32, port: Int)
    do { bound = try Self.bind(port: 0) } catch {
      Glibc.close(fds[0])
      Glibc.close(fds[1])
      throw error
    }
    self.name = name
    self.port = bound.port
    self.firstSocket = bound.fd
    self.wakeRead = fds[0]
    self.wakeWrite = fds[1]
    let thread = Thread { [self] in
      self.serve()
      self.finished.signal()
    }
    thread.name = "chaos-dependency-\(name)"
    thread.start()
    try set(.up, eventsPaths: [])
  }

  /// Connections answered so far.
  package var accepted: Int { state.withLock { $0.accepted } }

  /// Makes the dependency `wanted` from now on and returns once it is: `up` listens, `down`
  /// and `down_for` refuse; `down_for` listens again after its time and appends a
  /// `dependency` event (`state: up`) to `eventsPaths` then.
  package func set(_ wanted: DependencyState, eventsPaths: [String]) throws(Failure) {
    let generation = state.withLock { state in
      state.wanted = wanted
      state.generation += 1
      state.eventsPaths = eventsPaths
      if case .downFor(let seconds) = wanted {
        state.reopenAt = MonotonicClock.nanoseconds() + UInt64(seconds * 1e9)
      } else {
        state.reopenAt = nil
      }
      return state.generation
    }
    wake()
    while true {
      let (applied, problem) = state.withLock { ($0.applied, $0.problem) }
      if applied >= generation {
        if let problem { throw Failure(description: "dependency '\(name)' on port \(port): \(problem)") }
        return
      }
      _ = changed.wait(timeout: .now() + .milliseconds(100))
    }
  }

  /// Stops the thread and closes the listener, the held port and the wake pipe.
  package func close() {
    state.withLock { $0.stopping = true }
    wake()
    finished.wait()
    Glibc.close(wakeRead)
    Glibc.close(wakeWrite)
  }

  private func wake() {
    var byte: UInt8 = 1
    _ = write(wakeWrite, &byte, 1)
  }

  /// The thread: applies each state asked for, answers connections while up, reopens when a
  /// `down_for` is over.
  private func serve() {
    var socket = firstSocket
    var listening = false
    while true {
      let now = MonotonicClock.nanoseconds()
      let (wanted, generation, reopenAt, stopping, reopened) = state.withLock { state in
        var reopened: [String] = []
        if let reopenAt = state.reopenAt, reopenAt <= now {
          state.reopenAt = nil
          state.wanted = .up
          reopened = state.eventsPaths
        }
        return (state.wanted, state.generation, state.reopenAt, state.stopping, reopened)
      }
      if stopping { break }
      var problem: String?
      if wanted == .up, !listening {
        if socket < 0 {
          do { socket = try Self.bind(port: port).fd } catch { problem = error.description }
        }
        if socket >= 0 {
          if listen(socket, 128) == 0 { listening = true } else { problem = Self.systemError("listen") }
        }
      } else if wanted != .up, listening || socket < 0 {
        // Really closed: a refused connect, as for a server that is not running. The socket
        // that holds the port is bound before the listener closes (SO_REUSEPORT allows both),
        // so the port is never free: a connect elsewhere could take it as its local port.
        do {
          let holder = try Self.bind(port: port).fd
          if socket >= 0 { Glibc.close(socket) }
          socket = holder
          listening = false
        } catch {
          problem = error.description
        }
      }
      let applied = state.withLock { state in
        guard state.applied < generation else { return false }
        state.applied = generation
        state.problem = problem
        return true
      }
      if applied { changed.signal() }
      // Told once it listens again (the launch's events then show it in order), or why it cannot.
      for path in reopened {
        var fields: [String: Any] = ["event": "dependency", "dependency": name, "state": listening ? "up" : "down"]
        fields["port"] = port
        if !listening { fields["problem"] = problem ?? "not listening" }
        HarnessEvent.append(fields, pid: 0, to: path, source: "harness")
      }
      var entries = [pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0)]
      if listening { entries.append(pollfd(fd: socket, events: Int16(POLLIN), revents: 0)) }
      let timeout = reopenAt.map { Int32(clamping: ($0 &- min($0, MonotonicClock.nanoseconds())) / 1_000_000 + 1) }
      _ = poll(&entries, nfds_t(entries.count), timeout ?? -1)
      if entries[0].revents != 0 {
        var buffer = [UInt8](repeating: 0, count: 64)
        while read(wakeRead, &buffer, buffer.count) > 0 {}
      }
      if listening, entries.count > 1, entries[1].revents != 0 { answer(socket) }
    }
    if socket >= 0 { Glibc.close(socket) }
  }

  /// Accepts what is pending, writes `ok\n` to each and closes it.
  private func answer(_ listener: Int32) {
    while true {
      let connection = accept(listener, nil, nil)
      guard connection >= 0 else { return }
      _ = fcntl(connection, F_SETFD, FD_CLOEXEC)
      // Counted before the reply: a client that has read `ok` then finds itself counted.
      state.withLock { $0.accepted += 1 }
      let reply: [UInt8] = Array("ok\n".utf8)
      _ = reply.withUnsafeBytes { send(connection, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
      Glibc.close(connection)
    }
  }

  /// A non-blocking TCP socket bound to 127.0.0.1:`port` with SO_REUSEADDR and SO_REUSEPORT
  /// (0: a free port), not listening. SO_REUSEPORT lets the socket that holds a port while the
  /// dependency is down be bound before the listener closes.
  private static func bind(port: Int) throws(Failure) -> (fd: Int32, port: Int) {
    let fd = socket(
      AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    guard fd >= 0 else { throw Failure(description: systemError("socket")) }
    var one: Int32 = 1
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
    setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one, socklen_t(MemoryLayout<Int32>.size))
    var address = LoopbackAddress(port: port)
    let bound = address.withSocketAddress { Glibc.bind(fd, $0, $1.pointee) == 0 && getsockname(fd, $0, $1) == 0 }
    guard bound else {
      let failure = Failure(description: systemError("bind 127.0.0.1:\(port)"))
      Glibc.close(fd)
      throw failure
    }
    return (fd, address.port)
  }

  private static func systemError(_ call: String) -> String {
    "\(call): \(String(cString: strerror(errno)))"
  }
}
