import CProcessSpawn
import Foundation
import Synchronization
import XCTest

@testable import ChaosKit

/// Spawns run outside the registry's lock (the other jobs' spawns do not wait behind a slow
/// one), so a cancel can land while a child starts: that child must die, not be left running.
final class ChildRegistryTests: XCTestCase {
  /// Starts `/bin/sleep 30` as a new process group leader, as the harness starts targets.
  private func startSleeper() -> pid_t? {
    let argv: [UnsafeMutablePointer<CChar>?] = ["/bin/sleep", "30"].map { (text: String) in strdup(text) } + [nil]
    defer { for pointer in argv { free(pointer) } }
    let envp: [UnsafeMutablePointer<CChar>?] = [nil]
    var pid: pid_t = 0
    let result = cps_spawn("/bin/sleep", argv, envp, "/dev/null", "/dev/null", 1, &pid)
    XCTAssertEqual(result, 0, "spawn: \(String(cString: strerror(result)))")
    return result == 0 ? pid : nil
  }

  func testAChildStartedWhileACancelRunsIsKilledAndReaped() throws {
    let registry = ChildRegistry()
    var started: pid_t?
    let killed = Mutex<Int?>(nil)
    let recorded = registry.register {
      started = startSleeper()
      // The interrupt arrives, on another thread, between the child's start and its recording
      // (with the spawn under the lock, the cancel would wait for it: the timeout below).
      let cancelled = DispatchSemaphore(value: 0)
      DispatchQueue.global().async {
        let count = registry.cancelAll()
        killed.withLock { $0 = count }
        cancelled.signal()
      }
      _ = cancelled.wait(timeout: .now() + 5)
      return started
    }
    XCTAssertNil(recorded, "a child that started during a cancel is not handed back")
    XCTAssertEqual(killed.withLock { $0 }, 0, "the cancel ran while the child started, before it was recorded")
    let pid = try XCTUnwrap(started)
    XCTAssertFalse(FileManager.default.fileExists(atPath: "/proc/\(pid)"), "killed and reaped, not left running")
  }

  func testARecordedChildIsKilledByACancelAndNoneStartsAfter() throws {
    let registry = ChildRegistry()
    let pid = try XCTUnwrap(registry.register { startSleeper() })
    XCTAssertEqual(registry.cancelAll(), 1)
    XCTAssertFalse(FileManager.default.fileExists(atPath: "/proc/\(pid)"), "killed and reaped")
    var called = false
    XCTAssertNil(
      registry.register {
        called = true
        return startSleeper()
      })
    XCTAssertFalse(called, "no spawn once cancelled")
  }
}
