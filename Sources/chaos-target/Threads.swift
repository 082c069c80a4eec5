import CCrashCapture

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

// The reference app keeps Foundation out, as a server that adopts LaunchProtection does (issue
// 41): these stand in for Foundation's `Thread` and `FileHandle.standardError`. Loading
// libFoundation and ICU took a third of each launch's start, which `chaos explore` pays per
// launch.

/// Starts a detached thread named `name` (as LaunchProtection names its own) running `body`.
func startThread(named name: String, _ body: @escaping @Sendable () -> Void) {
  final class Work {
    let name: [CChar]
    let body: @Sendable () -> Void
    init(name: String, body: @escaping @Sendable () -> Void) {
      self.name = Array(name.utf8CString)
      self.body = body
    }
  }
  let work = Unmanaged.passRetained(Work(name: name, body: body)).toOpaque()
  var thread = pthread_t()
  let created = pthread_create(
    &thread, nil,
    { context in
      let work = Unmanaged<Work>.fromOpaque(context!).takeRetainedValue()
      work.name.withUnsafeBufferPointer { lcc_name_current_thread($0.baseAddress) }
      work.body()
      return nil
    }, work)
  guard created == 0 else {
    Unmanaged<AnyObject>.fromOpaque(work).release()
    fatalError("chaos-target: pthread_create failed (\(created))")
  }
  pthread_detach(thread)
}

/// Writes `text` to standard error, whole.
func writeStandardError(_ text: String) {
  var bytes = Array(text.utf8)[...]
  while !bytes.isEmpty {
    let written = bytes.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
    if written < 0 {
      if errno == EINTR { continue }
      return
    }
    bytes = bytes.dropFirst(written)
  }
}
