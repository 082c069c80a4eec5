import Synchronization

/// A serial queue of jobs run in order by one thread of the library's (a ``QuietThread``),
/// started with the first job: where the async API makes its durable writes, off the
/// cooperative pool. Not a Dispatch queue, so that the library links no libdispatch (see
/// ``WakeSignal``); an app that awaits the library has its own.
final class SerialWorker: Sendable {
  private struct Jobs: ~Copyable {
    var pending: [@Sendable () -> Void] = []
    var started = false
  }

  private let name: String
  private let jobs = Mutex(Jobs())
  /// Signalled once per job enqueued: the thread takes one job per wake.
  private let wake = WakeSignal()

  /// A worker whose thread is named `name` (at most 15 bytes reach the kernel).
  init(name: String) { self.name = name }

  /// Runs `job` on the worker's thread after the jobs enqueued before it. Should the thread
  /// not start (no memory, the thread limit), the jobs run on the calling thread instead.
  func enqueue(_ job: @escaping @Sendable () -> Void) {
    let start = jobs.withLock { jobs in
      jobs.pending.append(job)
      defer { jobs.started = true }
      return !jobs.started
    }
    wake.signal()
    guard start else { return }
    if !QuietThread.start(name: name, { [self] in run() }) {
      jobs.withLock { $0.started = false }
      while wake.wait(until: 0), let next = jobs.withLock({ $0.pending.isEmpty ? nil : $0.pending.removeFirst() }) {
        next()
      }
    }
  }

  private func run() {
    while true {
      wake.wait()
      let job = jobs.withLock { $0.pending.removeFirst() }
      job()
    }
  }
}
