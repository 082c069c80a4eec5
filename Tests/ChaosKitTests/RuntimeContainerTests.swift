import ChaosKit
import Foundation
import TestSupport
import XCTest

/// `runtime: runc` without the privilege it needs: skipped, naming the privilege and the line,
/// never passed, and nothing left behind.
final class RuntimeContainerTests: XCTestCase {
  /// Without CAP_SYS_ADMIN (dropped from the bounding set, as in an unprivileged container)
  /// runc cannot make its mounts and namespaces; as a user other than root it is not tried.
  func testWithoutPrivilegeItIsSkippedNamingTheLine() throws {
    let folder = TemporaryDirectory("runtime-unprivileged")
    try "name: unprivileged\ntimeout: 5s\nruntime: runc\nlaunches:\n  - expect: { outcome: finished }\n"
      .write(toFile: folder.file("s.yaml"), atomically: true, encoding: .utf8)
    let chaos = ChildProcess.spawn(
      "/usr/bin/setpriv",
      arguments: [
        "--bounding-set=-sys_admin", "--inh-caps=-sys_admin", ChildProcess.product("chaos"), "run",
        folder.file("s.yaml"), "--artifacts", folder.file("artifacts"), "--require-all",
      ],
      environment: [:], stdout: folder.file("out.txt"), stderr: folder.file("err.txt"))
    XCTAssertEqual(ChildProcess.wait(chaos, timeout: 60), .exited(2), "a skip with --require-all exits 2")
    let output =
      ((try? String(contentsOfFile: folder.file("out.txt"), encoding: .utf8)) ?? "")
      + ((try? String(contentsOfFile: folder.file("err.txt"), encoding: .utf8)) ?? "")
    for needle in ["skipped: needs CAP_SYS_ADMIN", "runtime: runc (line 3)", "--privileged", "1 skipped"] {
      XCTAssertTrue(output.contains(needle), "missing '\(needle)' in:\n\(output)")
    }
    // The failed probe left no bundle of that harness behind.
    let bundles = (try? FileManager.default.contentsOfDirectory(atPath: "/run/launchchaos")) ?? []
    XCTAssertEqual(bundles.filter { $0.hasPrefix("chaos-\(chaos)-") }, [])
  }
}
