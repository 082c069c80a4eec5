import Failpoints
import Synchronization
import XCTest

@testable import LaunchProtection

/// The thread the async API makes its durable writes on: jobs run one at a time, in order.
final class SerialWorkerTests: XCTestCase {
  func testJobsRunInTheOrderTheyWereEnqueuedOneAtATime() {
    let worker = SerialWorker(name: "test-worker")
    let order = Mutex<[Int]>([])
    let running = Atomic(0)
    let overlapped = Atomic(false)
    let done = WakeSignal()
    for index in 0..<200 {
      worker.enqueue {
        if running.add(1, ordering: .relaxed).newValue > 1 { overlapped.store(true, ordering: .relaxed) }
        order.withLock { $0.append(index) }
        running.subtract(1, ordering: .relaxed)
        if index == 199 { done.signal() }
      }
    }
    XCTAssertTrue(done.wait(until: MonotonicClock.nanoseconds() + 5_000_000_000), "the jobs did not all run")
    XCTAssertEqual(order.withLock { $0 }, Array(0..<200))
    XCTAssertFalse(overlapped.load(ordering: .relaxed), "two jobs ran at once")
  }
}
