import Foundation
import Synchronization
import XCTest

@testable import LaunchProtection

/// Who owns SIGTERM, as the stop signal observer is told: an owner found when the launch
/// starts is reported without `takenAfter` (it was there before the launch); one that takes
/// SIGTERM during the launch, with how long into the launch it came.
final class StopSignalReportTests: XCTestCase {
  /// The reports the observer was given.
  private final class Reports: Sendable {
    private let reports = Mutex<[StopSignalReport]>([])
    func add(_ report: StopSignalReport) { reports.withLock { $0.append(report) } }
    var all: [StopSignalReport] { reports.withLock { $0 } }
    /// Waits (up to 5 s) until the observer was told something.
    func waitForFirst() {
      let end = Date().addingTimeInterval(5)
      while all.isEmpty, Date() < end { usleep(1_000) }
    }
  }

  /// Each test watches its own launches only: those other tests of this process left
  /// unfinished would share the reports (a SIGTERM is a stop for every armed launch).
  override func setUp() {
    super.setUp()
    StopSignal.shared.disarmEveryLaunch()
  }

  private func organizerWatchingSIGTERM() -> (LaunchOrganizer, Reports) {
    var configuration = SimulatedLaunches().configuration()
    configuration.ignoreTermination = true  // the organizer looks at SIGTERM's owner
    let organizer = LaunchOrganizer(configuration: configuration)
    let reports = Reports()
    organizer.observe { if let report = $0.stopSignal { reports.add(report) } }
    return (organizer, reports)
  }

  func testAHandlerTakingSIGTERMDuringTheLaunchIsReportedWithWhenItCame() throws {
    let previous = signal(SIGTERM, SIG_DFL)
    defer { signal(SIGTERM, previous) }
    let (organizer, reports) = organizerWatchingSIGTERM()
    organizer.finishLaunching(
      policy: .threshold(100),
      launch: {
        usleep(20_000)
        _ = signal(SIGTERM) { _ in }  // the app's own handler, installed during the launch
        reports.waitForFirst()
        organizer.launchingFinished()
      }, protect: { _ in })
    let report = try XCTUnwrap(reports.all.first)
    XCTAssertEqual(reports.all.count, 1)
    XCTAssertEqual(report.owner, .handler)
    let after = try XCTUnwrap(report.takenAfter, "taken during the launch")
    XCTAssertGreaterThanOrEqual(after, .milliseconds(20))
    XCTAssertLessThan(after, .seconds(5))
  }

  func testSIGTERMIgnoredBeforeTheLaunchIsReportedOnceWithoutTakenAfter() throws {
    let previous = signal(SIGTERM, SIG_IGN)
    defer { signal(SIGTERM, previous) }
    let (organizer, reports) = organizerWatchingSIGTERM()
    organizer.finishLaunching(
      policy: .threshold(100), launch: { organizer.launchingFinished() }, protect: { _ in })
    XCTAssertEqual(reports.all, [StopSignalReport(owner: .ignored)])
    XCTAssertEqual(reports.all.first?.stopsRecorded, false)
  }

  /// An owner found again and again while the launch runs (the watcher looks every
  /// millisecond) is reported once.
  func testSIGTERMIgnoredDuringTheLaunchIsReportedOnce() throws {
    let previous = signal(SIGTERM, SIG_DFL)
    defer { signal(SIGTERM, previous) }
    let (organizer, reports) = organizerWatchingSIGTERM()
    organizer.finishLaunching(
      policy: .threshold(100),
      launch: {
        _ = signal(SIGTERM, SIG_IGN)  // the app ignores SIGTERM, during the launch
        reports.waitForFirst()
        usleep(50_000)  // dozens more looks by the watcher
        organizer.launchingFinished()
      }, protect: { _ in })
    XCTAssertEqual(reports.all.count, 1, "\(reports.all)")
    XCTAssertEqual(reports.all.first?.owner, .ignored)
  }

  private var sigtermTakesTheDefaultAction: Bool {
    var current = sigaction()
    sigaction(SIGTERM, nil, &current)
    return current.__sigaction_handler.sa_handler == nil  // SIG_DFL
  }

  /// Stops are recorded for every launch armed in the process: an earlier organizer finishing
  /// must not give SIGTERM back while a later launch runs, and the last one gives it back.
  func testAnEarlierLaunchFinishingLeavesTheCurrentLaunchArmed() {
    let previous = signal(SIGTERM, SIG_DFL)
    defer { signal(SIGTERM, previous) }
    // Another launch armed (a third organizer) keeps SIGTERM ours.
    let othersArmed = StopSignal.shared.armedLaunches > 0
    let (first, _) = organizerWatchingSIGTERM()
    let (second, _) = organizerWatchingSIGTERM()
    first.finishLaunching(policy: .threshold(100), launch: {}, protect: { _ in })
    second.finishLaunching(policy: .threshold(100), launch: {}, protect: { _ in })
    XCTAssertFalse(sigtermTakesTheDefaultAction, "the organizer's handler is in place")
    first.launchingFinished()
    XCTAssertFalse(sigtermTakesTheDefaultAction, "still in place for the second launch")
    second.launchingFinished()
    XCTAssertEqual(
      sigtermTakesTheDefaultAction, !othersArmed, "given back when the last armed launch finished, kept otherwise")
  }

  /// A signalfd that reads SIGTERM (SIGTERM blocked) before the launch: reported at once, as
  /// an owner from before the launch, and stops are not recorded.
  func testASignalfdReadingSIGTERMBeforeTheLaunchIsReportedWithoutTakenAfter() throws {
    var terminate = sigset_t()
    sigemptyset(&terminate)
    sigaddset(&terminate, SIGTERM)
    var previousMask = sigset_t()
    pthread_sigmask(SIG_BLOCK, &terminate, &previousMask)
    defer { pthread_sigmask(SIG_SETMASK, &previousMask, nil) }
    // signalfd(2) through libc's symbol: Glibc's Swift module does not export it.
    typealias SignalFD = @convention(c) (Int32, UnsafePointer<sigset_t>, Int32) -> Int32
    let symbol = try XCTUnwrap(dlsym(dlopen(nil, RTLD_NOW), "signalfd"))
    let descriptor = unsafeBitCast(symbol, to: SignalFD.self)(-1, &terminate, O_CLOEXEC)
    XCTAssertGreaterThanOrEqual(descriptor, 0)
    defer { close(descriptor) }
    let (organizer, reports) = organizerWatchingSIGTERM()
    organizer.finishLaunching(
      policy: .threshold(100), launch: { organizer.launchingFinished() }, protect: { _ in })
    XCTAssertEqual(reports.all, [StopSignalReport(owner: .signalfd(descriptor: descriptor))])
    XCTAssertEqual(reports.all.first?.stopsRecorded, false)
  }
}
