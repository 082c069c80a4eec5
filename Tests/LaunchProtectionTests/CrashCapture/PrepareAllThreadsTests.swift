import Foundation
import LaunchProtection
import Synchronization
import XCTest

/// `CrashCapture.prepareAllThreads()` runs in a signal handler on threads the app did not
/// create, which may be anywhere — inside malloc included. A first version called an
/// allocating function there and deadlocked such a thread (found by the Hummingbird loops).
final class PrepareAllThreadsTests: XCTestCase {
  func testThreadsBusyInMallocAreNeverDeadlocked() {
    let stop = Atomic<Bool>(false)
    let finished = DispatchGroup()
    for _ in 0..<2 {
      finished.enter()
      Thread {
        var rounds = 0
        while !stop.load(ordering: .relaxed) {
          // Allocation of many sizes keeps this thread inside malloc most of the time.
          let block = malloc(16 + rounds % 4096)
          free(block)
          rounds &+= 1
        }
        finished.leave()
      }.start()
    }
    var answered = 0
    for _ in 0..<200 { answered += CrashCapture.prepareAllThreads(timeoutMilliseconds: 50) ?? 0 }
    stop.store(true, ordering: .relaxed)
    XCTAssertEqual(finished.wait(timeout: .now() + 10), .success, "a thread interrupted inside malloc never came back")
    XCTAssertGreaterThan(answered, 0, "the busy threads took the requests")
  }
}
