import Dispatch
import Failpoints
import Foundation
import LaunchProtection
import Synchronization

/// `chaos-bench-helper --stop-window dispatch|handler STATE_DIR`: one launch of a fresh process
/// during which SIGTERM gets a new owner — a Dispatch signal source, as Vapor's serve command
/// and ServiceGroup make, or a plain handler — and the time until the organizer adopts it
/// (its stop-signal report). A SIGTERM in that window reaches only the new owner. Prints one
/// JSON object: `{"window_ns": N}` from the app's call (`signal`, or the source's `resume()`,
/// after which libdispatch installs its handler from its manager thread: an upper bound), and
/// for a Dispatch source `"registered_window_ns"` from its registration handler (which runs
/// after libdispatch installed its handler: a lower bound; 0 when the adoption came first).
enum StopWindowProbe {
  /// The app's signal source, made and resumed at once, kept for the process's life (Dispatch
  /// sources are thread-safe; one released unresumed would trap).
  private final class AppSource: @unchecked Sendable {
    let source = DispatchSource.makeSignalSource(signal: SIGTERM, queue: DispatchQueue(label: "app-sigterm"))
    let registeredAt = Atomic<UInt64>(0)
    init() {
      source.setEventHandler {}
      source.setRegistrationHandler { [unowned self] in
        registeredAt.store(MonotonicClock.nanoseconds(), ordering: .relaxed)
      }
      source.resume()
    }
  }

  static func run(arguments: [String]) {
    guard arguments.count == 2, ["dispatch", "handler"].contains(arguments[0]) else {
      FileHandle.standardError.write(Data("usage: --stop-window dispatch|handler STATE_DIR\n".utf8))
      exit(2)
    }
    let organizer = LaunchOrganizer(stateDirectory: arguments[1])
    let adoptedAt = Atomic<UInt64>(0)
    organizer.addStopSignalObserver { _ in
      _ = adoptedAt.compareExchange(expected: 0, desired: MonotonicClock.nanoseconds(), ordering: .relaxed)
    }
    let appSource = Mutex<AppSource?>(nil)
    let changedAt = Atomic<UInt64>(0)
    organizer.finishLaunching(
      shouldProtect: { _ in false },
      launch: {
        usleep(20_000)  // into the launch, past the watcher's start
        // From just before the app's call: for a Dispatch source, libdispatch's manager thread
        // installs its handler a little later, so this bounds the window from above.
        let changed = MonotonicClock.nanoseconds()
        changedAt.store(changed, ordering: .relaxed)
        if arguments[0] == "dispatch" {
          appSource.withLock { $0 = AppSource() }
        } else {
          _ = signal(SIGTERM) { _ in }
        }
        let end = changed + 5_000_000_000
        while adoptedAt.load(ordering: .relaxed) == 0, MonotonicClock.nanoseconds() < end { usleep(100) }
        organizer.launchingFinished()
      }, protect: {})
    let adopted = adoptedAt.load(ordering: .relaxed)
    guard adopted != 0 else {
      FileHandle.standardError.write(Data("chaos-bench-helper: the new SIGTERM owner was never adopted\n".utf8))
      exit(1)
    }
    let changed = changedAt.load(ordering: .relaxed)
    var fields = ["\"window_ns\": \(adopted >= changed ? adopted - changed : 0)"]
    if let source = appSource.withLock({ $0 }) {
      let end = MonotonicClock.nanoseconds() + 5_000_000_000
      while source.registeredAt.load(ordering: .relaxed) == 0, MonotonicClock.nanoseconds() < end { usleep(100) }
      let registered = source.registeredAt.load(ordering: .relaxed)
      fields.append("\"registered_window_ns\": \(adopted >= registered ? adopted - registered : 0)")
    }
    print("{" + fields.joined(separator: ", ") + "}")
  }
}
