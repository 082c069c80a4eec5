import Foundation
import TestSupport
import XCTest

/// A newcomer runs `chaos run` as a normal user: a `user:` scenario (root's to run) is skipped,
/// naming the privilege and the line, and the run exits 0; `--require-all`, as CI runs it,
/// exits 2. Run for real as `nobody`, with copies of the binaries in a folder it can enter.
final class PrivilegeSkipTests: XCTestCase {
  func testAsNobodyAUserScenarioIsSkippedAndRequireAllFailsIt() throws {
    try XCTSkipIf(geteuid() != 0, "needs root to run chaos as nobody")
    try XCTSkipIf(access("/usr/sbin/runuser", X_OK) != 0, "no runuser")
    let folder = TemporaryDirectory("privilege-skip")
    chmod(folder.path, 0o755)
    for name in ["chaos", "chaos-target"] {
      try FileManager.default.copyItem(atPath: ChildProcess.product(name), toPath: folder.file(name))
    }
    try
      "name: another user's launch\nlaunches:\n  - expect: { outcome: finished }\n  - user: nobody\n    expect: { outcome: finished }\n"
      .write(toFile: folder.file("s.yaml"), atomically: true, encoding: .utf8)
    chmod(folder.file("s.yaml"), 0o644)
    try FileManager.default.createDirectory(atPath: folder.file("artifacts"), withIntermediateDirectories: false)
    chown(folder.file("artifacts"), 65534, 65534)
    for (extra, status) in [([String](), Int32(0)), (["--require-all"], 2)] {
      let chaos = ChildProcess.spawn(
        "/usr/sbin/runuser",
        arguments: [
          "-u", "nobody", "--", folder.file("chaos"), "run", folder.file("s.yaml"), "--artifacts",
          folder.file("artifacts"),
        ]
          + extra,
        environment: [:], stdout: folder.file("out.txt"), stderr: folder.file("err.txt"))
      XCTAssertEqual(ChildProcess.wait(chaos, timeout: 60), .exited(status), "\(extra)")
      let output =
        ((try? String(contentsOfFile: folder.file("out.txt"), encoding: .utf8)) ?? "")
        + ((try? String(contentsOfFile: folder.file("err.txt"), encoding: .utf8)) ?? "")
      for needle in [
        "skipped: needs root: user: nobody (line 4)", "this run is uid 65534 (nobody) without them",
        "scenarios: 0 passed, 0 failed, 1 skipped",
      ] {
        XCTAssertTrue(output.contains(needle), "missing '\(needle)' in:\n\(output)")
      }
    }
  }
}
