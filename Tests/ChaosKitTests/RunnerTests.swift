import ChaosKit
import Foundation
import FoundationXML
import TestSupport
import XCTest

final class RunnerTests: XCTestCase {
  let artifacts = TemporaryDirectory("runner")

  func options() -> RunOptions {
    var options = RunOptions()
    options.jobs = 2
    options.referenceTarget = ChildProcess.product("chaos-target")
    options.artifactsDirectory = artifacts.path
    return options
  }

  func run(_ yaml: String, name: String = "scenario", in directory: TemporaryDirectory? = nil) throws -> ScenarioResult
  {
    let folder = directory ?? TemporaryDirectory("scenarios")
    let path = folder.file("\(name).yaml")
    try yaml.write(toFile: path, atomically: true, encoding: .utf8)
    return ScenarioRunner(options: options()).run(try ScenarioLoader.load(path: path))
  }

  func testEachOutcomeKindIsRecognised() throws {
    let yaml = """
      name: outcomes
      timeout: 2s
      app: { threshold: 100 }
      launches:
        - expect: { outcome: finished }
        - failpoints: "task.auth=segv"
          expect: { outcome: crash, signal: SIGSEGV }
        - failpoints: "task.auth=kill"
          expect: { outcome: killed }
        - failpoints: "task.auth=exit(9)"
          expect: { outcome: exit, exit_code: 9 }
        - failpoints: "task.auth=hang"
          expect: { outcome: timeout }
      """
    let result = try run(yaml)
    XCTAssertTrue(result.passed, result.messages.joined(separator: "\n"))
    XCTAssertEqual(result.processes.map(\.outcome), [.finished, .crash, .killed, .exit, .timeout])
    let hung = try XCTUnwrap(result.processes.last)
    XCTAssertLessThan(hung.durationMilliseconds, 2_000 + 1_000, "the watchdog fired on time")
    XCTAssertNotEqual(kill(hung.pid, 0), 0, "the hung process group is gone")
  }

  func testAFailedExpectationNamesLaunchExpectationAndArtifacts() throws {
    let result = try run(
      """
      name: wrong
      launches:
        - expect: { outcome: finished }
        - failpoints: "task.ui=abort"
          expect: { outcome: crash, signal: SIGSEGV }
        - expect: { outcome: finished }
      """)
    XCTAssertEqual(result.status, .failed)
    let message = try XCTUnwrap(result.messages.first)
    XCTAssertTrue(message.contains("launch 2 (line 4"), message)
    XCTAssertTrue(message.contains("expected signal SIGSEGV, saw SIGABRT"), message)
    XCTAssertTrue(message.contains("artifacts: \(artifacts.path)"), message)
    XCTAssertEqual(result.processes.count, 2, "a scenario stops at its first failing launch")
    XCTAssertNotNil(result.artifacts, "failing artifacts are kept")
    // The failure is a value: its kind is the key that failed, no message to parse.
    XCTAssertEqual(result.failures.map(\.kind), [.signal])
    XCTAssertEqual(result.processes[1].failures, [ScenarioFailure(.signal, "expected signal SIGSEGV, saw SIGABRT")])
    XCTAssertEqual(result.processes[1].end, .signaled(SIGABRT))
    XCTAssertEqual(result.processes[1].outcome, .crash)
    XCTAssertEqual(result.processes[0].mode, .normal)
    XCTAssertTrue(FileManager.default.fileExists(atPath: result.processes[1].artifacts + "/events.ndjson"))
  }

  /// A target in another language: a POSIX shell script that speaks the protocol.
  func testAShellScriptTargetSpeaksTheProtocol() throws {
    let folder = TemporaryDirectory("shell-target")
    let script = folder.file("target.sh")
    try """
    #!/bin/sh
    now() { cut -d' ' -f1 /proc/uptime | tr -d '.'; }
    echo "{\\"event\\":\\"launch\\",\\"pid\\":$$,\\"t\\":$(now)0000000,\\"count\\":0,\\"mode\\":\\"normal\\"}" >> "$CHAOS_EVENTS"
    case "$CHAOS_FAILPOINTS" in
      *crash*) kill -SEGV $$ ;;
      *garbage*) echo "this is not json" >> "$CHAOS_EVENTS"; echo "{}" >> "$CHAOS_EVENTS" ;;
    esac
    echo "{\\"event\\":\\"launching_finished\\",\\"pid\\":$$,\\"t\\":$(now)0000000}" >> "$CHAOS_EVENTS"
    exit 0
    """.write(toFile: script, atomically: true, encoding: .utf8)
    chmod(script, 0o755)
    let passing = try run(
      """
      name: shell target
      target: target.sh
      launches:
        - expect: { outcome: finished, count: 0, mode: normal, events: [launch, launching_finished] }
        - failpoints: point.crash=segv
          expect: { outcome: crash, signal: SIGSEGV, no_events: [launching_finished] }
      """, in: folder)
    XCTAssertTrue(passing.passed, passing.messages.joined(separator: "\n"))

    let garbage = try run(
      "name: garbage\ntarget: target.sh\nlaunches:\n  - failpoints: events.garbage=off\n    expect: {}\n",
      name: "garbage",
      in: folder)
    XCTAssertEqual(garbage.status, .failed)
    XCTAssertTrue(garbage.messages.first?.contains("malformed events file") ?? false, garbage.messages.joined())
    XCTAssertTrue(
      // Column 1: the line's first character, `t`, is where the JSON goes wrong.
      garbage.messages.first?.contains("events.ndjson:2:1: not a JSON object") ?? false, garbage.messages.joined())
  }

  /// `daemon:` stops a target that stays up after `launching_finished`, calls the launch
  /// finished, and fails the next launch if it counts the stopped pid (here a shell daemon that
  /// wrongly does; with the `counted` list empty the same scenario passes).
  func testADaemonStopIsFinishedAndCountingItFails() throws {
    let folder = TemporaryDirectory("daemon-target")
    let script = folder.file("daemon.sh")
    try """
    #!/bin/sh
    now() { cut -d' ' -f1 /proc/uptime | tr -d '.'; }
    previous=$(cat "$CHAOS_STATE_DIR/previous-pid" 2>/dev/null)
    counted=""
    if [ -n "$previous" ] && [ "$COUNT_STOPS" = 1 ]; then counted=$previous; fi
    echo $$ > "$CHAOS_STATE_DIR/previous-pid"
    echo "{\\"event\\":\\"launch\\",\\"pid\\":$$,\\"t\\":$(now)0000000,\\"count\\":0,\\"mode\\":\\"normal\\",\\"counted\\":[$counted]}" >> "$CHAOS_EVENTS"
    echo "{\\"event\\":\\"launching_finished\\",\\"pid\\":$$,\\"t\\":$(now)0000000}" >> "$CHAOS_EVENTS"
    trap 'exit 0' TERM
    while :; do sleep 0.05; done
    """.write(toFile: script, atomically: true, encoding: .utf8)
    chmod(script, 0o755)
    func scenario(countStops: Bool) -> String {
      """
      name: daemon
      target: daemon.sh
      timeout: 5s
      daemon: { stop_timeout: 2s }
      env: { COUNT_STOPS: "\(countStops ? 1 : 0)" }
      launches:
        - expect: { outcome: finished, events: [launching_finished, { event: supervisor, action: SIGTERM, reason: stop }] }
        - expect: { outcome: finished }
      """
    }
    let sound = try run(scenario(countStops: false), name: "sound", in: folder)
    XCTAssertTrue(sound.passed, sound.messages.joined(separator: "\n"))
    XCTAssertEqual(sound.processes.map(\.stoppedByHarness), [true, true])
    XCTAssertTrue(
      sound.processes.allSatisfy { $0.durationMilliseconds < 2_000 }, "stopped at once, not by the watchdog")

    let counting = try run(scenario(countStops: true), name: "counting", in: folder)
    XCTAssertEqual(counting.status, .failed)
    let message = try XCTUnwrap(counting.messages.first)
    XCTAssertTrue(message.contains("launch 2 (line 8"), message)
    XCTAssertTrue(
      message.contains("counted launch 1 (pid \(counting.processes[0].pid)), which the harness stopped"), message)
  }

  func testMissingAndNonExecutableTargetsAreScenarioErrors() throws {
    let folder = TemporaryDirectory("targets")
    let missing = try run("name: m\ntarget: no-such-program\nlaunches:\n  - expect: {}\n", in: folder)
    XCTAssertEqual(missing.status, .error)
    XCTAssertTrue(
      missing.messages.first?.contains("target 'no-such-program' not found") ?? false, missing.messages.joined())
    try "#!/bin/sh\n".write(toFile: folder.file("plain.sh"), atomically: true, encoding: .utf8)
    chmod(folder.file("plain.sh"), 0o644)
    let plain = try run("name: p\ntarget: plain.sh\nlaunches:\n  - expect: {}\n", name: "plain", in: folder)
    XCTAssertEqual(plain.status, .error)
    XCTAssertTrue(plain.messages.first?.contains("is not executable") ?? false, plain.messages.joined())
  }

  func testJUnitHasWhatJenkinsAndGitHubReportersRead() throws {
    let folder = TemporaryDirectory("junit")
    let passed = try run("name: good one\nlaunches:\n  - expect: { outcome: finished }\n", name: "good", in: folder)
    let failed = try run(
      "name: bad <one> & \"quoted\"\nlaunches:\n  - expect: { outcome: crash }\n", name: "bad", in: folder)
    let xml = JUnitReport.render([passed, failed])
    let document = try XMLDocument(data: Data(xml.utf8))
    let root = try XCTUnwrap(document.rootElement())
    XCTAssertEqual(root.name, "testsuites")
    XCTAssertEqual(root.attribute(forName: "tests")?.stringValue, "2")
    XCTAssertEqual(root.attribute(forName: "failures")?.stringValue, "1")
    let suite = try XCTUnwrap(root.elements(forName: "testsuite").first)
    for attribute in ["name", "tests", "failures", "errors", "time"] {
      XCTAssertNotNil(suite.attribute(forName: attribute), "testsuite@\(attribute)")
    }
    let cases = suite.elements(forName: "testcase")
    XCTAssertEqual(cases.count, 2)
    for testcase in cases {
      for attribute in ["classname", "name", "time"] {
        XCTAssertNotNil(testcase.attribute(forName: attribute), "testcase@\(attribute)")
      }
      XCTAssertNotNil(Double(testcase.attribute(forName: "time")?.stringValue ?? ""), "time is a number of seconds")
    }
    let failing = try XCTUnwrap(cases.first { $0.attribute(forName: "name")?.stringValue == "bad <one> & \"quoted\"" })
    let failure = try XCTUnwrap(failing.elements(forName: "failure").first)
    XCTAssertTrue(failure.attribute(forName: "message")?.stringValue?.contains("expected outcome crash") ?? false)
    XCTAssertTrue(failure.stringValue?.contains("launch 1") ?? false)
    XCTAssertEqual(failing.elements(forName: "system-out").count, 1)
    XCTAssertEqual(failing.elements(forName: "system-err").count, 1)
    XCTAssertTrue(cases.first { $0.attribute(forName: "name")?.stringValue == "good one" }?.children?.isEmpty ?? true)
  }

  /// Ctrl-C while targets run: `chaos run` kills every child process group and reaps it.
  func testInterruptLeavesNoSurvivors() throws {
    let folder = TemporaryDirectory("interrupt")
    let (chaos, children) = try Self.runThreeHangingLaunches(in: folder)
    kill(chaos, SIGINT)
    XCTAssertEqual(ChildProcess.wait(chaos, timeout: 20), .exited(130))
    for child in children {
      XCTAssertFalse(
        FileManager.default.fileExists(atPath: "/proc/\(child)"), "child \(child) survived (or was left a zombie)")
    }
    let stderr = (try? String(contentsOfFile: folder.file("err.txt"), encoding: .utf8)) ?? ""
    XCTAssertTrue(stderr.contains("killed 3 process groups"), stderr)
  }

  /// SIGKILL of `chaos run` — what a CI runner does after its grace period — while three
  /// launches hang: no handler runs in `chaos`, yet every target dies (PR_SET_PDEATHSIG).
  func testSIGKILLOfChaosLeavesNoTargetsRunning() throws {
    let folder = TemporaryDirectory("sigkill")
    let (chaos, children) = try Self.runThreeHangingLaunches(in: folder)
    // Wait until each hangs in its task (past exec and set-up), then kill chaos outright.
    let hanging = Date().addingTimeInterval(20)
    while Date() < hanging {
      let work = "artifacts/" + URL(fileURLWithPath: folder.path).lastPathComponent + "-hang"
      let events = (1...3).map { folder.file("\(work)/launch-1-p\($0)/events.ndjson") }
      if events.allSatisfy({ (try? String(contentsOfFile: $0, encoding: .utf8))?.contains("\"failpoint\"") ?? false }) {
        break
      }
      usleep(20_000)
    }
    kill(chaos, SIGKILL)
    XCTAssertEqual(ChildProcess.wait(chaos, timeout: 20), .signaled(SIGKILL))
    var alive = children
    let gone = Date().addingTimeInterval(5)
    while !alive.isEmpty && Date() < gone {
      usleep(20_000)
      alive = alive.filter(Self.isRunning)
    }
    XCTAssertEqual(alive, [], "targets still running after chaos was SIGKILLed")
  }

  /// Alive and not a zombie (an orphan's zombie waits for whoever reaps orphans here).
  static func isRunning(_ pid: pid_t) -> Bool {
    guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return false }
    return !status.contains("State:\tZ")
  }

  /// Starts `chaos run` on a scenario whose one launch runs three processes that hang; returns
  /// once all three are its children (or after 20 s).
  static func runThreeHangingLaunches(in folder: TemporaryDirectory) throws -> (chaos: pid_t, children: [pid_t]) {
    try "name: hangs\ntimeout: 60s\nlaunches:\n  - failpoints: task.network=hang\n    parallel: 3\n    expect: {}\n"
      .write(toFile: folder.file("hang.yaml"), atomically: true, encoding: .utf8)
    let chaos = ChildProcess.spawn(
      ChildProcess.product("chaos"),
      arguments: ["run", folder.file("hang.yaml"), "--artifacts", folder.file("artifacts")],
      environment: [:], stdout: folder.file("out.txt"), stderr: folder.file("err.txt"))
    var children: [pid_t] = []
    let deadline = Date().addingTimeInterval(20)
    while children.count < 3 && Date() < deadline {
      usleep(20_000)
      children = Self.children(of: chaos)
    }
    XCTAssertEqual(children.count, 3, "three targets running")
    return (chaos, children)
  }

  static func children(of parent: pid_t) -> [pid_t] {
    let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
    return entries.compactMap { Int32($0) }.filter { pid in
      guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return false }
      return status.split(separator: "\n").contains { $0 == "PPid:\t\(parent)" }
    }
  }
}
