import LaunchProtection
import XCTest

/// The growable types (structs of static values) against every value they have (issue 61).
/// Each test switches over the type's `Known` without a `default`, as the library does: a value
/// added to the type fails to compile here until the test says what it expects of it.
final class GrowableCodeTests: XCTestCase {
  // MARK: LaunchOrganizerError

  private func error(_ known: LaunchOrganizerError.Code.Known) -> LaunchOrganizerError {
    switch known {
    case .alreadyStarted: .alreadyStarted
    case .degraded: .degraded(ProtectLevel(number: 2, name: "reset", minimumCrashes: 4))
    }
  }

  /// 1.0 called every code but `degraded` with a level "already started", whatever it was.
  func testEveryLaunchOrganizerErrorSaysWhatItIs() {
    for known in LaunchOrganizerError.Code.Known.allCases {
      let error = error(known)
      XCTAssertEqual(error.code.known, known)
      XCTAssertEqual(error.code.name, known.rawValue)
      XCTAssertEqual(
        error.description.contains("already started"), known == .alreadyStarted, "\(known): \(error.description)")
    }
    XCTAssertTrue(error(.degraded).description.contains("last: 2 reset"))
  }

  // MARK: StateProblem

  private func problem(_ known: StateProblem.Code.Known) -> StateProblem {
    let path = "/var/lib/app/launch-state.json"
    switch known {
    case .corrupt: return .corrupt(path: path, movedTo: nil, detail: "truncated")
    case .futureVersion: return .futureVersion(path: path, found: 9, supported: 2, movedTo: nil)
    case .unreadable: return .unreadable(path: path, errno: EACCES, movedTo: nil)
    case .writeFailed: return .writeFailed(path: path, operation: "fsync", errno: EIO)
    case .lockUnavailable: return .lockUnavailable(path: path, detail: "held by pid 7")
    case .untrusted: return StateProblem(.untrusted, path: path, detail: "owned by uid 65534", owner: 65534)
    case .wrongFileType: return StateProblem(.wrongFileType, path: path, detail: "a FIFO stands where a file should be")
    }
  }

  func testEveryStateProblemCodeHasItsOwnDescription() {
    var seen: [String: StateProblem.Code.Known] = [:]
    for known in StateProblem.Code.Known.allCases {
      let problem = problem(known)
      XCTAssertEqual(problem.code.known, known)
      XCTAssertEqual(problem.kind, known.rawValue)
      XCTAssertTrue(problem.description.hasPrefix("state file") || problem.description.contains(problem.path))
      XCTAssertNil(seen[problem.description], "\(known) reads like \(String(describing: seen[problem.description]))")
      seen[problem.description] = known
    }
  }

  /// `detail` is words, left out of the version promise: `==` and the hash ignore it, and
  /// compare everything else.
  func testStateProblemEqualityHoldsAcrossWording() {
    for known in StateProblem.Code.Known.allCases {
      var reworded = problem(known)
      reworded.detail = "other words, " + reworded.detail
      XCTAssertEqual(reworded, problem(known), "\(known)")
      XCTAssertEqual(reworded.hashValue, problem(known).hashValue, "\(known)")
      XCTAssertEqual(Set([reworded, problem(known)]).count, 1)
    }
    let base = problem(.writeFailed)
    var changed = base
    changed.errno = EROFS
    XCTAssertNotEqual(changed, base)
    changed = base
    changed.operation = "rename"
    XCTAssertNotEqual(changed, base)
    changed = base
    changed.path = "/elsewhere"
    XCTAssertNotEqual(changed, base)
    changed = base
    changed.movedTo = "/var/lib/app/launch-state.json.corrupt-1"
    XCTAssertNotEqual(changed, base)
    XCTAssertNotEqual(problem(.untrusted), StateProblem(.wrongFileType, path: base.path, owner: 65534))
  }

  // MARK: StopSignalReport.Owner and DependencyWait.Stage

  func testEveryOwnerOfSigtermHasItsOwnDescription() {
    var seen = Set<String>()
    for known in StopSignalReport.Owner.Known.allCases {
      let owner: StopSignalReport.Owner =
        switch known {
        case .ignored: .ignored
        case .dispatchSource: .dispatchSource
        case .handler: .handler
        case .signalfd: .signalfd(descriptor: 9)
        }
      XCTAssertEqual(owner.known, known)
      let report = StopSignalReport(owner: owner)
      XCTAssertTrue(seen.insert(report.description).inserted, "\(known): \(report.description)")
      XCTAssertEqual(owner.isSignalfd, known == .signalfd)
    }
  }

  func testEveryDependencyWaitStageHasItsOwnDescription() {
    var seen = Set<String>()
    for known in DependencyWait.Stage.Known.allCases {
      let stage: DependencyWait.Stage =
        switch known {
        case .waiting: .waiting
        case .answered: .answered
        case .failed: .failed
        }
      XCTAssertEqual(stage.name, known.rawValue)
      let wait = DependencyWait(dependency: "postgres", stage: stage, waited: known == .waiting ? nil : .seconds(1))
      XCTAssertTrue(seen.insert(wait.description).inserted, "\(known): \(wait.description)")
    }
  }

  // MARK: LaunchProtectionEvent.Kind

  /// Every kind's static value is the kind its `Known` names, and no two share a name.
  func testEveryEventKindIsItsOwn() {
    for known in LaunchProtectionEvent.Kind.Known.allCases {
      let kind: LaunchProtectionEvent.Kind =
        switch known {
        case .launch: .launch
        case .relaunch: .relaunch
        case .protectEnter: .protectEnter
        case .protectFinish: .protectFinish
        case .launchingFinished: .launchingFinished
        case .lifeAction: .lifeAction
        case .stateProblem: .stateProblem
        case .exceptionRecorded: .exceptionRecorded
        case .uncountedExit: .uncountedExit
        case .launchDeadlineExceeded: .launchDeadlineExceeded
        case .stopRequested: .stopRequested
        case .levelsExhausted: .levelsExhausted
        case .privateStateDirectory: .privateStateDirectory
        }
      XCTAssertEqual(kind.known, known)
      XCTAssertEqual(kind.name, known.rawValue)
    }
    let names = LaunchProtectionEvent.Kind.Known.allCases.map(\.rawValue)
    XCTAssertEqual(Set(names).count, names.count)
  }

  /// The events a kind without a payload builds describe themselves, not their name.
  func testEventsDescribeThemselves() {
    for event in [LaunchProtectionEvent.relaunch, .launchingFinished, .stopRequested] {
      XCTAssertNotEqual(event.description, event.kind.name)
    }
    let problem = problem(.corrupt)
    XCTAssertTrue(LaunchProtectionEvent.stateProblem(problem).description.contains(problem.path))
  }
}
