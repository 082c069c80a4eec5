import ChaosKit
import Foundation
import TestSupport
import XCTest

/// `container: true`: each launch is PID 1 of new PID and mount namespaces with its own /proc.
final class ContainerTests: XCTestCase {
  let artifacts = TemporaryDirectory("container")

  func run(_ yaml: String, in folder: TemporaryDirectory) throws -> ScenarioResult {
    let path = folder.file("scenario.yaml")
    try yaml.write(toFile: path, atomically: true, encoding: .utf8)
    var options = RunOptions()
    options.jobs = 1
    options.referenceTarget = ChildProcess.product("chaos-target")
    options.artifactsDirectory = artifacts.path
    return ScenarioRunner(options: options).run(try ScenarioLoader.load(path: path))
  }

  /// A shell target reports its own pid and whether its /proc shows only a few processes (its
  /// own namespace's): pid 1 and a few under `container: true` (while the harness saw another
  /// pid), neither without it.
  func testALaunchIsPID1AndSeesOnlyItsOwnProc() throws {
    let folder = TemporaryDirectory("container-target")
    let script = folder.file("target.sh")
    try """
    #!/bin/sh
    few=false; [ "$(ls /proc | grep -c '^[0-9]*$')" -lt 10 ] && few=true
    echo "{\\"event\\":\\"launch\\",\\"pid\\":$$,\\"t\\":1,\\"count\\":0,\\"mode\\":\\"normal\\",\\"few_processes\\":$few}" >> "$CHAOS_EVENTS"
    echo "{\\"event\\":\\"launching_finished\\",\\"pid\\":$$,\\"t\\":2}" >> "$CHAOS_EVENTS"
    """.write(toFile: script, atomically: true, encoding: .utf8)
    chmod(script, 0o755)
    let result = try run(
      """
      name: pid 1
      target: target.sh
      container: true
      launches:
        - expect: { outcome: finished, events: [{ event: launch, pid: 1, few_processes: true }] }
        - container: false
          expect: { outcome: finished, events: [{ event: launch, few_processes: false }], no_events: [{ event: launch, pid: 1 }] }
      """, in: folder)
    XCTAssertTrue(result.passed, result.messages.joined(separator: "\n"))
    XCTAssertEqual(result.processes.map(\.targetPid), [1, nil])
    XCTAssertNotEqual(result.processes.first?.pid, 1, "the harness sees the launch by its pid outside")
  }

  /// Without CAP_SYS_ADMIN (dropped from the bounding set, as in an unprivileged container)
  /// a `container: true` scenario is skipped, naming the privilege and how to give it: the run
  /// exits 0 when nothing else failed, and 2 with `--require-all`, as CI runs it.
  func testWithoutPrivilegeItIsSkippedNamingThePrivilegeAndRequireAllFailsIt() throws {
    let folder = TemporaryDirectory("container-unprivileged")
    try "name: unprivileged\ncontainer: true\nlaunches:\n  - expect: { outcome: finished }\n"
      .write(toFile: folder.file("s.yaml"), atomically: true, encoding: .utf8)
    for (extra, status) in [([String](), Int32(0)), (["--require-all"], 2)] {
      let chaos = ChildProcess.spawn(
        "/usr/bin/setpriv",
        arguments: [
          "--bounding-set=-sys_admin", "--inh-caps=-sys_admin", ChildProcess.product("chaos"), "run",
          folder.file("s.yaml"), "--artifacts", folder.file("artifacts"), "--junit", folder.file("junit.xml"),
        ] + extra,
        environment: [:], stdout: folder.file("out.txt"), stderr: folder.file("err.txt"))
      XCTAssertEqual(ChildProcess.wait(chaos, timeout: 60), .exited(status), "\(extra)")
      let output =
        ((try? String(contentsOfFile: folder.file("out.txt"), encoding: .utf8)) ?? "")
        + ((try? String(contentsOfFile: folder.file("err.txt"), encoding: .utf8)) ?? "")
      for needle in [
        "skipped: needs CAP_SYS_ADMIN", "line 2, container: true", "--privileged",
        "scenarios: 0 passed, 0 failed, 1 skipped",
      ] {
        XCTAssertTrue(output.contains(needle), "missing '\(needle)' in:\n\(output)")
      }
      let junit = (try? String(contentsOfFile: folder.file("junit.xml"), encoding: .utf8)) ?? ""
      XCTAssertTrue(junit.contains("<skipped message=\"needs CAP_SYS_ADMIN: line 2"), junit)
      XCTAssertTrue(junit.contains("skipped=\"1\""), junit)
    }
  }
}
