import CFailpointFaults
import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// A plain pthread named `failpoint`, so `thread(...)` faults happen on a thread the app did
/// not create.
enum BackgroundThread {
  private final class Box: Sendable {
    let body: @Sendable () -> Void
    let finished = Atomic<Bool>(false)
    init(_ body: @escaping @Sendable () -> Void) { self.body = body }
  }

  /// Runs `body` on a fresh thread. The caller keeps running (polling, not blocked in a
  /// join) until the thread is done, as a real app's main thread would while a worker crashes.
  static func runAndJoin(_ body: @escaping @Sendable () -> Void) {
    let box = Box(body)
    let raw = Unmanaged.passRetained(box).toOpaque()
    var thread = pthread_t()
    let started = pthread_create(
      &thread, nil,
      { raw in
        let box = Unmanaged<Box>.fromOpaque(raw!).takeRetainedValue()
        cf_set_thread_name("failpoint")
        box.body()
        box.finished.store(true, ordering: .releasing)
        return nil
      }, raw)
    guard started == 0 else {
      Unmanaged<Box>.fromOpaque(raw).release()
      body()
      return
    }
    while !box.finished.load(ordering: .acquiring) { usleep(200) }
    pthread_join(thread, nil)
  }
}
