import CCrashCapture
import Dispatch
import XCTest

/// The stop watcher's Dispatch source, made through libdispatch's C API, which the library
/// reaches by weak references (it links no libdispatch): in a process that has libdispatch
/// (this one: XCTest links it), the source is made, registered, handed each signal, and freed
/// after it is cancelled. SIGUSR2, not SIGTERM: libdispatch takes a signal's handler once per
/// process, and other tests reset SIGTERM's.
final class DispatchSignalSourceTests: XCTestCase {
  private final class Seen: @unchecked Sendable {  // each semaphore is thread-safe
    let registered = DispatchSemaphore(value: 0)
    let signalled = DispatchSemaphore(value: 0)
    let finalized = DispatchSemaphore(value: 0)
  }

  func testASourceIsRegisteredHandedTheSignalAndFreedOnceCancelled() throws {
    XCTAssertEqual(lcc_dispatch_available(), 1, "libdispatch's C API did not resolve in a process that has it")
    let seen = Seen()
    let context = Unmanaged.passRetained(seen).toOpaque()
    let made = lcc_dispatch_signal_source_make(
      SIGUSR2, context,
      { Unmanaged<Seen>.fromOpaque($0!).takeUnretainedValue().signalled.signal() },
      { Unmanaged<Seen>.fromOpaque($0!).takeUnretainedValue().registered.signal() },
      { context in
        let seen = Unmanaged<Seen>.fromOpaque(context!)
        seen.takeUnretainedValue().finalized.signal()
        seen.release()
      })
    let source = try XCTUnwrap(made, "no source made")
    XCTAssertEqual(seen.registered.wait(timeout: .now() + 5), .success, "never registered")
    kill(getpid(), SIGUSR2)
    XCTAssertEqual(seen.signalled.wait(timeout: .now() + 5), .success, "the source was not handed SIGUSR2")
    lcc_dispatch_source_cancel(source)
    XCTAssertEqual(seen.finalized.wait(timeout: .now() + 5), .success, "the cancelled source was never freed")
  }
}
