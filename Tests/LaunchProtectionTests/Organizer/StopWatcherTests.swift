import Dispatch
import Foundation
import Synchronization
import XCTest

@testable import LaunchProtection

/// The stop watcher against the launch's own thread: a launch that finishes at the worst
/// moment of the watcher's work must leave nothing behind that can take the process down.
final class StopWatcherTests: XCTestCase {
  /// The watcher found that libdispatch took SIGTERM during the launch (an app made a Dispatch
  /// signal source, as Vapor's serve command and ServiceGroup do) and, before it adopted the
  /// new owner, the launch finished. The watcher used to make its Dispatch source anyway, find
  /// the organizer gone and drop the source unresumed: libdispatch traps (SIGILL) on releasing
  /// an inactive object, a crash of the healthy process right after `launchingFinished()`.
  /// Now the decision and the source are taken under the lock `disarm` takes: no source.
  func testALaunchFinishingBetweenTheOwnerCheckAndTheAdoptionLeavesNoSourceAndNoCrash() throws {
    let previous = signal(SIGTERM, SIG_DFL)
    defer { signal(SIGTERM, previous) }
    var configuration = SimulatedLaunches().configuration()
    configuration.ignoreTermination = true  // the organizer watches SIGTERM's owner
    let organizer = LaunchOrganizer(configuration: configuration)
    let finishedByHook = DispatchSemaphore(value: 0)
    let hookRuns = Atomic(0)
    StopSignal.shared.beforeAdoption.withLock {
      $0 = {
        // On the watcher's thread, between its owner check and the adoption.
        guard hookRuns.add(1, ordering: .relaxed).newValue == 1 else { return }
        organizer.launchingFinished()
        finishedByHook.signal()
      }
    }
    defer { StopSignal.shared.beforeAdoption.withLock { $0 = nil } }
    let appSource = AppSignalSource()
    defer { appSource.source.cancel() }
    let hookFired = Mutex(false)
    organizer.finishLaunching(
      policy: .threshold(100),
      launch: {
        appSource.source.resume()  // libdispatch takes SIGTERM during the launch
        let fired = finishedByHook.wait(timeout: .now() + 5) == .success
        hookFired.withLock { $0 = fired }
      }, protect: { _ in })
    XCTAssertTrue(hookFired.withLock { $0 }, "the watcher never found libdispatch's ownership of SIGTERM")
    // Time for the watcher to go on past the adoption (where the old code dropped the source).
    usleep(300_000)
    XCTAssertEqual(hookRuns.load(ordering: .relaxed), 1, "the watcher kept re-checking after the launch finished")
    XCTAssertEqual(organizer.status.launchMode, .finished)
  }
}

/// The app's Dispatch signal source (Dispatch sources are thread-safe).
private final class AppSignalSource: @unchecked Sendable {
  let source = DispatchSource.makeSignalSource(signal: SIGTERM, queue: DispatchQueue(label: "app-sigterm"))
  init() { source.setEventHandler {} }
}
