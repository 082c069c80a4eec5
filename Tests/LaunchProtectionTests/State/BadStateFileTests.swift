import Failpoints
import Foundation
import LaunchProtection
import Synchronization
import XCTest

/// Whatever is on disk, the launch goes on: every field of a real state file set to odd values,
/// and random corruptions of the bytes. Values outside the documented range are a state
/// problem (reported, the file moved aside), never a trap and never a negative count.
final class BadStateFileTests: XCTestCase {
  private static let oddValues: [(label: String, json: String)] = [
    ("-1", "-1"), ("Int64.max", "9223372036854775807"), ("Int64.min", "-9223372036854775808"),
    ("2^64", "18446744073709551616"), ("1e308", "1e308"), ("-1e308", "-1e308"), ("string", "\"text\""),
    ("null", "null"), ("array", "[1, 2]"), ("object", "{}"),
    ("100 kB string", "\"" + String(repeating: "x", count: 100_000) + "\""),
    ("deep nesting", String(repeating: "[", count: 5000) + String(repeating: "]", count: 5000)),
  ]

  private static let fields = [
    "version", "consecutiveCrashes", "attemptedProtectLevel", "executableID", "launchesInProgress",
    "launchesInProgress.0.launchID", "launchesInProgress.0.phase", "launchesInProgress.0.startedAt",
    "launchesInProgress.0.process.pid", "launchesInProgress.0.process.startTime",
    "launchesInProgress.0.process.bootID", "lastCrashCause", "lastCrashCause.type", "lastCrashCause.detail",
    "lastCrashCause.pid", "lastCrashCause.afterLaunch", "lastCrashCause.recordedAt", "lastUncountedExit.reason",
    "lastUncountedExit.pid", "lastUncountedExit.decidedAt", "launchesInProgress.0.waitingFor",
    "lastDependencyOutage.dependency", "lastDependencyOutage.launchesInARow", "lastDependencyOutage.pid",
    "lastDependencyOutage.decidedAt",
  ]

  /// A real state of this library: one dead launch pending, a crash cause and an uncounted exit recorded.
  private func realState(_ launches: SimulatedLaunches) throws -> String {
    var state = LaunchState()
    state.consecutiveCrashes = 1
    state.attemptedProtectLevel = 1
    state.executableID = "build-1"
    state.launchesInProgress = [
      LaunchRecord(
        process: ProcessIdentity(pid: 4242, startTime: 4242, bootID: "boot-A"), launchID: "dead-launch",
        phase: .launching, startDate: Date(timeIntervalSince1970: 1_700_000_000))
    ]
    state.lastCrashCause = CrashCause(
      type: "SIGSEGV", detail: "main thread", pid: 4241, recordDate: Date(timeIntervalSince1970: 1_700_000_000))
    state.lastUncountedExit = UncountedExit(
      reason: .cleanExit, pid: 4240, decisionDate: Date(timeIntervalSince1970: 1_700_000_000))
    state.lastDependencyOutage = DependencyOutage(
      dependency: "postgres", launchesInARow: 2, pid: 4239, decisionDate: Date(timeIntervalSince1970: 1_700_000_000))
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    return String(decoding: try encoder.encode(state), as: UTF8.self)
  }

  /// Sets `path` (dot-separated, numbers index arrays) to the placeholder, then splices the raw value in.
  private func replacing(_ path: String, in json: String, with raw: String) throws -> String {
    var root = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
    func set(_ value: Any, _ keys: ArraySlice<String>) -> Any {
      guard let key = keys.first else { return "@@VALUE@@" }
      if var array = value as? [Any], let index = Int(key), array.indices.contains(index) {
        array[index] = set(array[index], keys.dropFirst())
        return array
      }
      var object = value as? [String: Any] ?? [:]
      object[key] = set(object[key] ?? [:], keys.dropFirst())
      return object
    }
    root = set(root, path.split(separator: ".").map(String.init)[...]) as? [String: Any] ?? root
    let text = String(decoding: try JSONSerialization.data(withJSONObject: root, options: [.sortedKeys]), as: UTF8.self)
    return text.replacingOccurrences(of: "\"@@VALUE@@\"", with: raw)
  }

  /// Runs one launch over `text` and checks the contract for bad files.
  private func assertLaunchGoesOn(over text: String, _ label: String) throws {
    let launches = SimulatedLaunches()
    try FileManager.default.createDirectory(atPath: launches.stateDirectory, withIntermediateDirectories: true)
    try Data(text.utf8).write(to: URL(fileURLWithPath: launches.stateDirectory + "/launch-state.json"))
    let recorder = Recorder()
    let organizer = launches.organizer(observe: recorder)
    let ran = Mutex<String?>(nil)
    organizer.finishLaunching(
      policy: .threshold(2), launch: { ran.withLock { $0 = "launch" } },
      protect: { _ in ran.withLock { $0 = "repair" } })
    XCTAssertNotNil(ran.withLock { $0 }, "\(label): the launch or the repair must run")
    let decision = try XCTUnwrap(organizer.status.decision, label)
    XCTAssertTrue((0...LaunchState.maximumCount).contains(decision.count), "\(label): count \(decision.count)")
    for problem in decision.problems {
      switch problem.code {
      case .corrupt, .futureVersion:
        XCTAssertNotNil(problem.movedTo, "\(label): a bad file is moved aside, never lost")
        XCTAssertGreaterThan(recorder.count(of: "state_problem \(problem.kind)"), 0, "\(label): reported")
      default: XCTFail("\(label): unexpected problem \(problem)")
      }
    }
    // Whatever happened, what is on disk now is a sound state again.
    let after = try XCTUnwrap(try launches.state(), label)
    XCTAssertNil(after.rangeProblem, label)
  }

  func testEveryFieldWithOddValuesNeverStopsTheLaunch() throws {
    let launches = SimulatedLaunches()
    let base = try realState(launches)
    try assertLaunchGoesOn(over: base, "the real state")
    for field in Self.fields {
      for (label, raw) in Self.oddValues {
        try assertLaunchGoesOn(over: try replacing(field, in: base, with: raw), "\(field) = \(label)")
      }
    }
  }

  /// One launch of a threshold-2 organizer over the state file `text`.
  private func launch(_ launches: SimulatedLaunches, over text: String) throws -> LaunchOrganizer {
    try FileManager.default.createDirectory(atPath: launches.stateDirectory, withIntermediateDirectories: true)
    try Data(text.utf8).write(to: URL(fileURLWithPath: launches.stateDirectory + "/launch-state.json"))
    let organizer = launches.organizer()
    organizer.finishLaunching(policy: .threshold(2), launch: {}, protect: { _ in })
    return organizer
  }

  func testAMaximalCountWithADeadSentinelIsCorruptNotATrap() throws {
    // Found by an adversary: this file made every launch trap in the increment, forever.
    let launches = SimulatedLaunches()
    let text = try replacing("consecutiveCrashes", in: try realState(launches), with: "9223372036854775807")
    let organizer = try launch(launches, over: text)
    guard let problem = organizer.status.decision?.problems.first as StateProblem?, problem.code == .corrupt else {
      return XCTFail("expected corrupt, got \(String(describing: organizer.status.decision?.problems))")
    }
    let detail = problem.detail
    XCTAssertTrue(detail.contains("consecutiveCrashes 9223372036854775807 outside 0...1000000"), detail)
    XCTAssertEqual(organizer.status.decision?.count, 0)
  }

  func testNegativeCountsAreRejected() throws {
    let launches = SimulatedLaunches()
    let text = try replacing("consecutiveCrashes", in: try realState(launches), with: "-9223372036854775807")
    let organizer = try launch(launches, over: text)
    XCTAssertEqual(organizer.status.decision?.count, 0)
    XCTAssertEqual(organizer.status.decision?.problems.first?.kind, "corrupt")
  }

  func testTheCountSaturatesAtItsMaximum() throws {
    let launches = SimulatedLaunches()
    let text = try replacing(
      "consecutiveCrashes", in: try realState(launches), with: "\(LaunchState.maximumCount)")
    let organizer = try launch(launches, over: text)
    XCTAssertEqual(organizer.status.decision?.problems, [])
    XCTAssertEqual(organizer.status.decision?.count, LaunchState.maximumCount, "the dead launch is counted, saturating")
    XCTAssertEqual(try launches.state()?.consecutiveCrashes, LaunchState.maximumCount)
  }

  func testRandomCorruptionsOfARealFileNeverStopTheLaunch() throws {
    let launches = SimulatedLaunches()
    // A real slotted file, written by the store.
    let organizer = launches.organizer()
    organizer.finishLaunching(policy: .threshold(2), launch: {}, protect: { _ in })
    let real = Array(try Data(contentsOf: URL(fileURLWithPath: launches.stateDirectory + "/launch-state.json")))
    var generator = SeededGenerator(seed: 21)
    for round in 0..<200 {
      var bytes = real
      switch round % 4 {
      case 0: for _ in 0...(generator.next() % 8) { bytes[Int(generator.next() % UInt64(bytes.count))] ^= 0xFF }
      case 1: bytes = Array(bytes.prefix(Int(generator.next() % UInt64(bytes.count))))
      case 2:
        let at = Int(generator.next() % UInt64(bytes.count))
        bytes.insert(
          contentsOf: (0..<(generator.next() % 16)).map { _ in UInt8(truncatingIfNeeded: generator.next()) }, at: at)
      default:
        // Damage only the JSON inside the newest slot and fix up nothing: the checksum must catch it.
        let at = 120 + Int(generator.next() % 100)
        bytes[at] = UInt8(truncatingIfNeeded: generator.next())
      }
      try assertLaunchGoesOn(over: String(decoding: bytes, as: UTF8.self), "corruption \(round)")
    }
  }
}
