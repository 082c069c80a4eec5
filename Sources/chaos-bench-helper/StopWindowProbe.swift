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
/// after libdispatch installed its handler: a lower bound; 0 when the adoption came first) and
/// `"installed_window_ns"` from the moment SIGTERM's action stopped being the organizer's, seen
/// by a thread that reads it with `sigaction` in a loop at real-time priority (so busy loops do
/// not delay it: the start of the window itself, to a few microseconds).
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

  /// Reads SIGTERM's action until it is no longer `current` (the organizer's handler), and
  /// records when. At SCHED_FIFO when the process may (root): a spinner the busy loops could
  /// preempt would see the change late and make the window look shorter than it is.
  private final class ActionWatch: @unchecked Sendable {
    let changedAt = Atomic<UInt64>(0)
    let stop = Atomic<Bool>(false)
    private var thread = pthread_t()

    init() {
      var current = sigaction()
      sigaction(SIGTERM, nil, &current)
      let start = ActionWatch.handlerBits(current)
      let box = Unmanaged.passRetained(Box(watch: self, start: start))
      var attributes = pthread_attr_t()
      pthread_attr_init(&attributes)
      defer { pthread_attr_destroy(&attributes) }
      var parameters = sched_param()
      parameters.sched_priority = 1
      if pthread_attr_setinheritsched(&attributes, Int32(PTHREAD_EXPLICIT_SCHED)) == 0,
        pthread_attr_setschedpolicy(&attributes, SCHED_FIFO) == 0,
        pthread_attr_setschedparam(&attributes, &parameters) == 0,
        pthread_create(&thread, &attributes, ActionWatch.main, box.toOpaque()) == 0
      {
        return
      }
      // Not allowed real-time: an ordinary thread (the figure may then read low under load).
      pthread_create(&thread, nil, ActionWatch.main, box.toOpaque())
    }

    func join() {
      stop.store(true, ordering: .relaxed)
      pthread_join(thread, nil)
    }

    private final class Box {
      let watch: ActionWatch
      let start: UInt
      init(watch: ActionWatch, start: UInt) {
        self.watch = watch
        self.start = start
      }
    }

    private static let main: @convention(c) (UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? = { raw in
      let box = Unmanaged<Box>.fromOpaque(raw!).takeRetainedValue()
      var action = sigaction()
      while !box.watch.stop.load(ordering: .relaxed) {
        sigaction(SIGTERM, nil, &action)
        if handlerBits(action) != box.start {
          box.watch.changedAt.store(MonotonicClock.nanoseconds(), ordering: .relaxed)
          break
        }
      }
      return nil
    }

    static func handlerBits(_ action: sigaction) -> UInt {
      unsafeBitCast(action.__sigaction_handler.sa_handler, to: UInt.self)
    }
  }

  static func run(arguments: [String]) {
    guard arguments.count == 2, ["dispatch", "handler"].contains(arguments[0]) else {
      FileHandle.standardError.write(Data("usage: --stop-window dispatch|handler STATE_DIR\n".utf8))
      exit(2)
    }
    let organizer = LaunchOrganizer(stateDirectory: arguments[1])
    let adoptedAt = Atomic<UInt64>(0)
    organizer.observe { observation in
      guard observation.stopSignal != nil else { return }
      _ = adoptedAt.compareExchange(expected: 0, desired: MonotonicClock.nanoseconds(), ordering: .relaxed)
    }
    let appSource = Mutex<AppSource?>(nil)
    let actionWatch = Mutex<ActionWatch?>(nil)
    let changedAt = Atomic<UInt64>(0)
    organizer.finishLaunching(
      policy: .custom { _ in false },
      launch: {
        usleep(20_000)  // into the launch, past the watcher's start
        // From just before the app's call: for a Dispatch source, libdispatch's manager thread
        // installs its handler a little later, so this bounds the window from above.
        let watch = arguments[0] == "dispatch" ? ActionWatch() : nil
        actionWatch.withLock { $0 = watch }
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
      }, protect: { _ in })
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
    if let watch = actionWatch.withLock({ $0 }) {
      watch.join()
      let installed = watch.changedAt.load(ordering: .relaxed)
      if installed != 0 { fields.append("\"installed_window_ns\": \(adopted >= installed ? adopted - installed : 0)") }
    }
    print("{" + fields.joined(separator: ", ") + "}")
  }
}
