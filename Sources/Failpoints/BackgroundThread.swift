#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// A plain pthread, so `thread(...)` faults happen on a thread the app did not create.
enum BackgroundThread {
  private final class Box {
    let body: () -> Void
    init(_ body: @escaping () -> Void) { self.body = body }
  }

  static func runAndJoin(_ body: @escaping () -> Void) {
    let box = Unmanaged.passRetained(Box(body)).toOpaque()
    var thread = pthread_t()
    let started = pthread_create(
      &thread, nil,
      { raw in
        let box = Unmanaged<Box>.fromOpaque(raw!).takeRetainedValue()
        box.body()
        return nil
      }, box)
    guard started == 0 else {
      Unmanaged<Box>.fromOpaque(box).takeRetainedValue().body()
      return
    }
    pthread_join(thread, nil)
  }
}
