import Foundation
import TestSupport
import XCTest

@testable import ChaosBench

/// The floors `chaos bench` sets its figures against: the protection pair's system calls
/// replayed bare, and a crash handler that records nothing.
final class BenchFloorTests: XCTestCase {
  /// The replay writes its two slots in place: the state file stays two 4 KiB slots, beside
  /// its lock file, and nothing else appears in the directory.
  func testSystemCallReplayRewritesTwoSlotsInPlace() throws {
    let directory = TemporaryDirectory()
    let replay = try LaunchPathSystemCalls(directory: directory.path)
    defer { replay.deallocate() }
    for _ in 0..<3 { replay.replayPair() }
    let names = try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
    XCTAssertEqual(names, ["launch-state.json", "launch-state.lock"])
    let size = try FileManager.default.attributesOfItem(atPath: directory.file("launch-state.json"))[.size] as? Int
    XCTAssertEqual(size, 8192)
  }

  /// A report written before the replay was measured still reads, and prints without its line.
  func testProtectionReportWithoutSystemCallsStillDecodesAndPrints() throws {
    let summary = LatencySummary(nanoseconds: [19_000])
    let mode = ProtectionCostBenchmark.ModeCost(
      durability: "processCrash", finishLaunchingAfterCrash: summary, finishLaunchingAfterCleanLaunch: summary,
      launchingFinished: summary, afterCrashPlusFinished: summary)
    var report = ProtectionCostBenchmark.Report(
      modes: [mode], bareFdatasync: LatencySummary(nanoseconds: [100_000]),
      twoBarePwrites: LatencySummary(nanoseconds: [1_000]), pairSystemCalls: LatencySummary(nanoseconds: [9_500]),
      plainLaunch: LatencySummary(nanoseconds: [10]))
    let withCalls = BenchTables.protection(report, iterations: 1)
    XCTAssertTrue(withCalls.contains("19 system calls alone"), withCalls)
    XCTAssertTrue(withCalls.contains("the pair: 2.00× its system calls alone"), withCalls)

    var object = try XCTUnwrap(JSONSerialization.jsonObject(with: JSONEncoder().encode(report)) as? [String: Any])
    object["pairSystemCalls"] = nil
    report = try JSONDecoder().decode(
      ProtectionCostBenchmark.Report.self, from: JSONSerialization.data(withJSONObject: object))
    XCTAssertNil(report.pairSystemCalls)
    XCTAssertFalse(BenchTables.protection(report, iterations: 1).contains("system calls alone"))
  }

  /// The minimal handler catches the fault on its alternate stack and still dies by it.
  func testMinimalHandlerDiesByTheSignal() throws {
    let directory = TemporaryDirectory()
    for (failpoint, signal) in [("task.ui=segv", SIGSEGV), ("task.ui=abort", SIGABRT)] {
      let pid = ChildProcess.spawn(
        ChildProcess.product("chaos-bench-helper"),
        environment: [
          "CHAOS_FAILPOINTS": failpoint, "CHAOS_APP": "{\"handler\": \"minimal\"}",
          "CHAOS_STATE_DIR": directory.file("state"), "CHAOS_EVENTS": directory.file("events.ndjson"),
        ])
      XCTAssertEqual(ChildProcess.wait(pid), .signaled(signal), failpoint)
    }
  }
}
