import ChaosKit
import Foundation
import TestSupport
import XCTest

/// Real crashes in real child processes (the reference app), captured by the handler.
final class CrashCaptureTests: XCTestCase {
  struct Crash {
    var termination: Termination?
    var events: [TargetEvent]
    var record: CrashRecord?
    var backtrace: Backtrace?
    var stderr: String
  }

  let symbolizer = Symbolizer()

  func crash(
    _ failpoints: String, app: String = "{}", backtraceSetting: String? = "enable=no",
    directory: TemporaryDirectory = TemporaryDirectory()
  ) throws -> Crash {
    var environment = [
      "CHAOS_STATE_DIR": directory.file("state"), "CHAOS_EVENTS": directory.file("events.ndjson"),
      "CHAOS_FAILPOINTS": failpoints, "CHAOS_APP": app,
    ]
    if let backtraceSetting { environment["SWIFT_BACKTRACE"] = backtraceSetting }
    let pid = ChildProcess.spawn(
      ChildProcess.product("chaos-target"), environment: environment,
      unsetting: backtraceSetting == nil ? ["SWIFT_BACKTRACE"] : [],
      stderr: directory.file("stderr.txt"))
    let termination = ChildProcess.wait(pid, timeout: 60)
    let events = try EventDecoder.decode(path: directory.file("events.ndjson")).events
    let record = try events.last { $0.name == "crash" }.map { try CrashRecord(event: $0) }
    let stderr = (try? String(contentsOfFile: directory.file("stderr.txt"), encoding: .utf8)) ?? ""
    return Crash(
      termination: termination, events: events, record: record, backtrace: record.map(symbolizer.symbolize),
      stderr: stderr)
  }

  private func assertSane(
    _ crash: Crash, signal: Int32, function: String, mainThread: Bool = true, file: StaticString = #filePath,
    line: UInt = #line
  ) {
    XCTAssertEqual(
      crash.termination, .signaled(signal), "the parent must see the original signal", file: file, line: line)
    guard let record = crash.record, let backtrace = crash.backtrace else {
      return XCTFail("no crash record; events: \(crash.events.map(\.name))", file: file, line: line)
    }
    XCTAssertEqual(record.signal, signal, file: file, line: line)
    XCTAssertEqual(record.mainThread, mainThread, file: file, line: line)
    XCTAssertFalse(record.modules.isEmpty, file: file, line: line)
    XCTAssertTrue(
      backtrace.contains(function), "expected \(function) in\n\(backtrace.description)", file: file, line: line)
    // Latency fields: ordered, and the fault's timestamp precedes the handler.
    XCTAssertLessThanOrEqual(record.entered, record.unwound, file: file, line: line)
    XCTAssertLessThanOrEqual(record.unwound, record.done, file: file, line: line)
    XCTAssertLessThan(record.done - record.entered, 5_000_000_000, "handler under 5 s", file: file, line: line)
    if let fault = crash.events.last(where: { $0.name == "failpoint" }) {
      XCTAssertLessThanOrEqual(fault.time, record.entered, "fault before handler entry", file: file, line: line)
    }
  }

  func testEachFaultIsCapturedAndSymbolizedToTheCrashingFunction() throws {
    let cases: [(String, Int32, String)] = [
      ("segv", SIGSEGV, "cf_fault_null_write"), ("bus", SIGBUS, "cf_fault_bus"),
      ("fpe", SIGFPE, "cf_fault_integer_divide"), ("abort", SIGABRT, "FaultInjection.perform"),
      ("trap", SIGTRAP, "cf_fault_breakpoint"), ("fatal", SIGILL, "failpointFatalError"),
      ("unwrap", SIGILL, "failpointUnwrap"), ("oob", SIGILL, "failpointOutOfBounds"),
      ("overflow", SIGILL, "failpointOverflow"), ("stackoverflow", SIGSEGV, "failpointStackOverflow"),
    ]
    for (action, signal, function) in cases {
      // `config` runs on the launching (main) thread.
      let result = try crash("task.config=\(action)")
      assertSane(result, signal: signal, function: function)
      XCTAssertTrue(result.backtrace?.contains("ConfigTask.run") ?? false, "\(action): the task's own frame")
    }
  }

  func testSmashedStackIsRecordedUpToTheCorruptFrame() throws {
    // The frame above the crash holds unmapped addresses: the walk must stop there (through
    // libunwind's real page checks, not the shortcut for known stack pages), never fault
    // inside the handler, and still end the process with the original signal.
    for failpoints in ["task.config=smash", "task.config=thread(smash)"] {
      let result = try crash(failpoints)
      assertSane(
        result, signal: SIGSEGV, function: "cf_fault_smashed_stack", mainThread: !failpoints.contains("thread"))
      guard let record = result.record else { continue }
      XCTAssertEqual(record.frames.count, 2, "\(failpoints): the crashing frame and the corrupt return address")
      XCTAssertEqual(record.frames.last, "0xbad00000", "\(failpoints): the smashed return address is the last frame")
    }
  }

  func testCaptureWithoutPrefaultedUnwindTables() throws {
    // prefaultUnwindTables only saves page faults: with it off, the record is the same.
    for (action, signal, function) in [("fatal", SIGILL, "failpointFatalError"), ("abort", SIGABRT, "ConfigTask.run")] {
      let result = try crash("task.config=\(action)", app: "{\"prefault\": false}")
      assertSane(result, signal: signal, function: function)
    }
  }

  func testStackOverflowOnABackgroundThreadIsCaught() throws {
    // Walked to the bottom: the cap keeps the first frames and the thread's bottom frames.
    let result = try crash("task.config=thread(stackoverflow)", app: "{\"max_frames_walked\": 200000}")
    assertSane(result, signal: SIGSEGV, function: "failpointStackOverflow", mainThread: false)
    XCTAssertEqual(result.record?.threadName, "failpoint")
    XCTAssertGreaterThan(result.record?.framesOmitted ?? 0, 0)
    XCTAssertEqual(result.record?.walkStopped, false)
    XCTAssertTrue(result.backtrace?.contains("BackgroundThread") ?? false, result.backtrace?.description ?? "")
  }

  func testPastTheWalkCapTheFramePointerChainFindsTheBottom() throws {
    // Main thread (~12,000 frames) and a worker (~1,800): libunwind walks 512 frames, the
    // frame-pointer chain the rest, and the bottom frames still name who started the work.
    for (spec, function, bottom) in [
      ("task.config=stackoverflow", "failpointStackOverflow", "ConfigTask.run"),
      ("task.config=thread(stackoverflow)", "failpointStackOverflow", "BackgroundThread"),
    ] {
      let result = try crash(spec)
      assertSane(result, signal: SIGSEGV, function: function, mainThread: spec.contains("thread(") ? false : true)
      let record = try XCTUnwrap(result.record, spec)
      XCTAssertFalse(record.walkStopped, "\(spec): the chain reached the outermost frame")
      XCTAssertGreaterThan(record.framesByFramePointers, 500, spec)
      XCTAssertGreaterThan(record.framesTotal, 1000, spec)
      XCTAssertTrue(result.backtrace?.contains(bottom) ?? false, "\(spec): \(result.backtrace?.description ?? "")")
    }
    let shallow = try crash("task.config=thread(segv)")
    XCTAssertEqual(
      shallow.record?.framesByFramePointers, 0, "a stack shallower than the cap is walked by libunwind alone")
  }

  func testACapInsideTheFaultingFramesIsBridgedByTheChain() throws {
    // A cap of 4 frames, still inside the recursion: libunwind stops there, the chain goes on.
    let result = try crash("task.config=thread(stackoverflow)", app: "{\"max_frames_walked\": 4}")
    let record = try XCTUnwrap(result.record)
    XCTAssertFalse(record.walkStopped)
    XCTAssertGreaterThan(record.framesByFramePointers, 1000)
    // The chain's frames fill the head past libunwind's four: the recursion's one return
    // address, again and again, up to where the head ends. The first of them may be another
    // call site of the deepest frame: where the guard page is hit (in the function or in a
    // call it makes) depends on where the thread's stack began, which moves with the code.
    XCTAssertEqual(record.frames.count, 128)
    XCTAssertEqual(Set(record.frames[5..<96]).count, 1, "\(record.frames[..<96])")
    XCTAssertNotEqual(record.frames[4], "0x0")
    XCTAssertNotEqual(record.frames[5], "0x0")
    XCTAssertTrue(result.backtrace?.contains("BackgroundThread") ?? false, result.backtrace?.description ?? "")
  }

  func testCrashInAConcurrentTaskIsOnAWorkerThreadAndNamesTheTask() throws {
    let result = try crash("task.network=segv")
    assertSane(result, signal: SIGSEGV, function: "NetworkTask.run", mainThread: false)
    XCTAssertEqual(result.record?.threadName.hasPrefix("launch-worker"), true)
  }

  func testTwoThreadsCrashingAtOnceLeaveOneWholeRecord() throws {
    // database and network are concurrent siblings; both fault at the same moment.
    let app = "{\"concurrency\": 2, \"task_overrides\": {\"database\": {\"sleep_ms\": 0}}}"
    for _ in 0..<5 {
      let result = try crash("task.network=segv;task.database=fpe", app: app)
      guard case .signaled(let signal) = result.termination else {
        return XCTFail("\(String(describing: result.termination))")
      }
      XCTAssertTrue([SIGSEGV, SIGFPE].contains(signal))
      XCTAssertEqual(result.events.filter { $0.name == "crash" }.count, 1, "exactly one record, never two interleaved")
      XCTAssertEqual(result.record?.signal, signal, "the recorded crash is the one the process died of")
    }
  }

  func testCrashOnABackgroundThreadWhileTheMainThreadRuns() throws {
    let result = try crash("task.config=thread(segv)")
    assertSane(result, signal: SIGSEGV, function: "cf_fault_null_write", mainThread: false)
    XCTAssertNotEqual(result.record?.thread, result.record?.pid)
  }

  func testFrameCapIsHonoured() throws {
    let result = try crash("task.config=stackoverflow", app: "{\"max_frames\": 32, \"max_frames_walked\": 2000}")
    XCTAssertEqual(result.record?.frames.count, 32)
    XCTAssertGreaterThan(result.record?.framesTotal ?? 0, 2000, "libunwind's 2,000 and the chain's rest")
    XCTAssertEqual(result.record?.walkStopped, false)
  }

  func testSwiftBacktraceSettingsWithAndWithoutChaining() throws {
    for setting in [nil, "enable=no", "enable=yes,interactive=no"] {
      for chain in [false, true] {
        let label = "SWIFT_BACKTRACE=\(setting ?? "(unset)") chain=\(chain)"
        let started = Date()
        let result = try crash("task.network=fatal", app: "{\"chain\": \(chain)}", backtraceSetting: setting)
        XCTAssertLessThan(Date().timeIntervalSince(started), 30, "\(label): must never hang")
        XCTAssertEqual(result.termination, .signaled(SIGILL), label)
        XCTAssertNotNil(result.record, "\(label): our record is written first")
        let runtimeBacktrace = result.stderr.contains("Backtrace") || result.stderr.contains("crashed")
        let runtimeHandlerInstalled = setting != "enable=no"
        XCTAssertEqual(
          runtimeBacktrace, chain && runtimeHandlerInstalled, "\(label): stderr was \(result.stderr.prefix(300))")
      }
    }
  }

  func testNextLaunchKnowsWhyThePreviousDied() throws {
    let directory = TemporaryDirectory()
    _ = try crash("task.config=segv", app: "{\"threshold\": 100}", directory: directory)
    let next = try crash("", app: "{\"threshold\": 100}", directory: directory)
    XCTAssertEqual(next.termination, .exited(0))
    let launch = next.events.last { $0.name == "launch" }
    XCTAssertEqual(launch?["count"]?.int, 1)
    guard case .object(let previous) = launch?["previous_crash"] else {
      return XCTFail("no previous_crash in \(String(describing: launch))")
    }
    XCTAssertEqual(previous["type"]?.string, "SIGSEGV")
    XCTAssertEqual(previous["after_launch"]?.bool, false)
    XCTAssertTrue(previous["detail"]?.string?.contains("main thread") ?? false)
    let reports = try FileManager.default.contentsOfDirectory(atPath: directory.file("state")).filter {
      $0.hasPrefix("crash-")
    }
    XCTAssertEqual(reports, [], "the report is consumed once its cause is persisted")
  }

  func testCrashAfterLaunchingFinishedIsRecordedNotCounted() throws {
    let directory = TemporaryDirectory()
    let app = "{\"threshold\": 1, \"life_actions\": [\"serve\"]}"
    let first = try crash("life.serve=segv", app: app, directory: directory)
    XCTAssertEqual(first.termination, .signaled(SIGSEGV))
    XCTAssertEqual(first.record?.afterLaunch, true)
    let next = try crash("", app: app, directory: directory)
    let launch = next.events.last { $0.name == "launch" }
    XCTAssertEqual(launch?["count"]?.int, 0, "a crash after launchingFinished never counts")
    XCTAssertEqual(launch?["mode"]?.string, "normal")
    guard case .object(let previous) = launch?["previous_crash"] else { return XCTFail("no previous_crash") }
    XCTAssertEqual(previous["after_launch"]?.bool, true)
  }
}
