import CCrashCapture
import Failpoints
import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// SIGTERM during the launch, for the organizer that is launching, whoever owns the signal:
/// - the default action or a handler: the C handler (`stop_signal.c`) goes in front of it and
///   wakes this watcher's thread through a pipe; the thread records the stop request in the
///   sentinel — a durable write no signal handler may make — then, when the signal's previous
///   action was the default one, ends the process by SIGTERM;
/// - a Dispatch signal source (swift-service-lifecycle, Vapor): the C handler goes in front of
///   libdispatch's, chaining to it, and a source of ours records a SIGTERM too (libdispatch
///   reads it from a signalfd and hands it to every Dispatch source for it);
/// - an owner that takes SIGTERM during the launch is adopted by the watcher, which re-checks
///   the owner every half millisecond while a launch is armed (every 10 ms after its first
///   second), puts the C handler back in front at once, and reports it once. A SIGTERM that
///   reaches the new owner before the watcher looks is not seen (``StopSignalReport/advice``
///   says how an app closes that window).
///
/// Every decision about a Dispatch source is taken under `state`'s lock, where the source is
/// made: a source is made, configured and resumed in one critical section, and only while a
/// launch is armed; `disarm` cancels it under the same lock. So no source is ever released
/// inactive (libdispatch traps on that), whatever the launch does meanwhile.
final class StopSignal: Sendable {
  static let shared = StopSignal()

  /// One armed launch: its organizer, when it was armed, and the owner last reported to it.
  private struct Watch {
    weak var organizer: LaunchOrganizer?
    var armedAt: UInt64
    var reported: StopSignalReport.Owner?
  }

  private struct State: @unchecked Sendable {
    var wakeWrite: Int32 = -1
    /// The organizers whose launches are armed: one in an app, several in its parallel tests.
    /// A SIGTERM is a stop for each of them.
    var watches: [Watch] = []
    var organizers: [LaunchOrganizer] { watches.compactMap(\.organizer) }
    func isWatching(_ organizer: LaunchOrganizer) -> Bool { watches.contains { $0.organizer === organizer } }
    /// Our Dispatch source (`dispatch_source_t`) while libdispatch owns SIGTERM during a launch.
    var source: UnsafeMutableRawPointer?
    /// When the latest launch was armed (the watcher looks often in a launch's first second).
    var armedAt: UInt64 = 0
  }

  /// What our Dispatch source's handlers reach (its context, released by its finalizer):
  /// the watcher to tell and the signal its registration gives.
  private final class SourceContext: Sendable {
    let owner: StopSignal
    let registered = WakeSignal()
    init(owner: StopSignal) { self.owner = owner }
  }

  private let state = Mutex(State())
  /// Tests only: called on the watcher's thread after it found that libdispatch took SIGTERM
  /// and before it adopts it (where a launch that finishes used to leave a source inactive).
  let beforeAdoption = Mutex<(@Sendable () -> Void)?>(nil)
  private static let wakeStop: UInt8 = 0x54  // 'T', written by the C handler
  private static let wakeArmed: UInt8 = 0x41  // 'A': start re-checking the owner

  /// Starts recording stops for `organizer`'s launch, beside any other organizer's launch in
  /// progress in this process.
  func arm(for organizer: LaunchOrganizer) {
    // The C side is armed under this lock, as `disarm` gives SIGTERM back under it: a launch
    // armed while the last other one disarms finds the handler in place, and keeps it.
    let armed: (fd: Int32, installed: Int32)? = state.withLock { state in
      if state.wakeWrite < 0 {
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else { return nil }
        for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        state.wakeWrite = fds[1]
        startWatcher(readFD: fds[0])
      }
      state.watches.removeAll { $0.organizer == nil || $0.organizer === organizer }
      state.armedAt = MonotonicClock.nanoseconds()
      state.watches.append(Watch(organizer: organizer, armedAt: state.armedAt))
      return (state.wakeWrite, lcc_stop_signal_install(state.wakeWrite))
    }
    guard let (wakeFD, installed) = armed else { return }
    switch installed {
    case 1:
      report(.ignored, to: organizer, duringLaunch: false)
    case 2:
      // Registered before the launch goes on: from here every SIGTERM is seen.
      adoptDispatchOwner()
    case 0:
      if let consumer = SignalfdConsumer.find(signal: SIGTERM) {
        report(.signalfd(descriptor: consumer), to: organizer, duringLaunch: false)
      }
    default:
      break
    }
    var byte = Self.wakeArmed
    _ = write(wakeFD, &byte, 1)
  }

  /// Tests only: forgets every armed launch and gives SIGTERM back, as if each had finished
  /// (launches other tests of the process left unfinished stay armed otherwise).
  func disarmEveryLaunch() {
    for organizer in state.withLock({ $0.organizers }) { disarm(for: organizer) }
  }

  /// How many launches in this process are armed (their organizers alive and unfinished).
  var armedLaunches: Int { state.withLock { $0.organizers.count } }

  /// The launch is over: stop recording it, and once no launch is armed give SIGTERM back, if
  /// we still own it.
  func disarm(for organizer: LaunchOrganizer) {
    state.withLock { state in
      guard state.isWatching(organizer) else { return }
      state.watches.removeAll { $0.organizer == nil || $0.organizer === organizer }
      guard state.watches.isEmpty else { return }
      // A resumed source may be cancelled from any thread; cancelling never runs a handler here.
      if let source = state.source { lcc_dispatch_source_cancel(source) }
      state.source = nil
      _ = lcc_stop_signal_uninstall()
    }
  }

  /// Adds a Dispatch source of ours for SIGTERM beside the owner's (libdispatch hands each
  /// SIGTERM to every source registered for it) and waits, at most 200 ms, until it is
  /// registered. Made only when libdispatch already owns SIGTERM (the first source for a
  /// signal replaces its handler, which would change what SIGTERM does in an app without
  /// one), and only while a launch is armed: decided, made and resumed under the lock that
  /// `disarm` takes.
  private func adoptDispatchOwner() {
    let made = state.withLock { locked -> SourceContext? in
      guard locked.source == nil, !locked.organizers.isEmpty else { return nil }
      let context = SourceContext(owner: self)
      let retained = Unmanaged.passRetained(context).toOpaque()
      // Made, configured and resumed in one call, before the lock is released: from here it
      // may only be cancelled. Nil when libdispatch is not in the process.
      let source = lcc_dispatch_signal_source_make(
        SIGTERM, retained,
        { context in Unmanaged<SourceContext>.fromOpaque(context!).takeUnretainedValue().owner.sourceFired() },
        { context in Unmanaged<SourceContext>.fromOpaque(context!).takeUnretainedValue().registered.signal() },
        { context in Unmanaged<SourceContext>.fromOpaque(context!).release() })
      guard let source else {
        Unmanaged<SourceContext>.fromOpaque(retained).release()
        return nil
      }
      locked.source = source
      return context
    }
    made?.registered.wait(until: MonotonicClock.nanoseconds() + 200_000_000)
  }

  /// Our Dispatch source saw a SIGTERM (on its queue).
  private func sourceFired() {
    for organizer in state.withLock({ $0.organizers }) { organizer.stopRequested() }
  }

  /// Re-checks who owns SIGTERM now, from the caller's thread, while `organizer`'s launch is
  /// armed (the checks are serialised by the C side's lock and this object's).
  func checkOwner(for organizer: LaunchOrganizer) {
    guard state.withLock({ $0.isWatching(organizer) }), lcc_stop_signal_armed() != 0 else { return }
    checkOwner()
  }

  /// Re-checks who owns SIGTERM while a launch is armed (from the watcher thread).
  private func checkOwner() {
    switch lcc_stop_signal_check() {
    case 2:
      beforeAdoption.withLock { $0 }?()
      // Our handler is already in front of libdispatch's again: from here every SIGTERM that
      // a handler receives is recorded. The source covers one that none does (SIGTERM blocked
      // in every thread, read from libdispatch's signalfd), once libdispatch's manager thread
      // has registered it: made and registered before the report, so that the report's "stops
      // are recorded" holds from the moment it is seen.
      adoptDispatchOwner()
      reportDuringLaunch(.dispatchSource)
    case 3:
      reportDuringLaunch(.handler)
    case 1:
      reportDuringLaunch(.ignored)
    default:
      break
    }
  }

  private func reportDuringLaunch(_ owner: StopSignalReport.Owner) {
    report(owner, to: nil, duringLaunch: true)
  }

  /// Reports a new owner once to each launch, `organizer`'s (nil: every armed one), with how
  /// long into that launch it came.
  private func report(_ owner: StopSignalReport.Owner, to organizer: LaunchOrganizer?, duringLaunch: Bool) {
    let now = MonotonicClock.nanoseconds()
    let told: [(LaunchOrganizer, Duration)] = state.withLock { state in
      var told: [(LaunchOrganizer, Duration)] = []
      for index in state.watches.indices {
        guard let watched = state.watches[index].organizer, organizer.map({ $0 === watched }) ?? true,
          state.watches[index].reported != owner
        else { continue }
        state.watches[index].reported = owner
        let armedAt = state.watches[index].armedAt
        told.append((watched, .nanoseconds(Int64(now > armedAt ? now - armedAt : 0))))
      }
      return told
    }
    for (organizer, elapsed) in told {
      var report = StopSignalReport(owner: owner, takenAfter: duringLaunch ? elapsed : nil)
      report.shutdownPathDeclared = organizer.hasDeclaredShutdownPath
      organizer.emit(report)
    }
  }

  private func startWatcher(readFD: Int32) {
    QuietThread.start(name: "launch-stop-watcher") { [self] in
      var byte: UInt8 = 0
      while true {
        let ready = lcc_stop_signal_wait(readFD, recheckInterval().map { Int($0) } ?? -1)
        if ready < 0 {
          if errno == EINTR { continue }
          return
        }
        if ready == 0 {
          checkOwner()
          continue
        }
        let count = read(readFD, &byte, 1)
        if count < 0, errno == EINTR { continue }
        guard count == 1 else { return }
        guard byte == Self.wakeStop else { continue }
        for organizer in state.withLock({ $0.organizers }) {
          organizer.stopRequested()
          // A launch finishing right now: its end is written before the signal goes on.
          organizer.completePendingFinish()
        }
        lcc_stop_signal_recorded()
        if lcc_stop_signal_should_terminate() != 0 { lcc_stop_signal_terminate() }
      }
    }
  }

  /// How long the watcher waits, in microseconds, before re-checking SIGTERM's owner: every
  /// half millisecond in a launch's first second (when servers make their signal sources; the
  /// window a new owner has SIGTERM to itself is this plus the watcher's wake-up), every 10 ms
  /// after that (a long repair or a degraded launch), never (nil) when no launch is armed.
  private func recheckInterval() -> Int? {
    guard lcc_stop_signal_armed() != 0 else { return nil }
    let armedAt = state.withLock { $0.armedAt }
    return MonotonicClock.nanoseconds() - armedAt < 1_000_000_000 ? 500 : 10_000
  }
}
