import ChaosKit
import Foundation
import TestSupport
import XCTest

/// `systemd:` scenarios: the unit, the launch keys and the expectations, and their errors.
extension ScenarioLoaderTests {
  func testTheGuidesUnitLoadsWithItsLaunchKeysAndExpectations() throws {
    let path = Repository.root + "/Scenarios/systemd-real/crash-loop-reaches-protect-mode.yaml"
    let scenario = try ScenarioLoader.load(path: path)
    let systemd = try XCTUnwrap(scenario.systemd)
    XCTAssertEqual(systemd.unitName, "mydaemon.service")
    XCTAssertTrue(systemd.unitText.contains("StartLimitBurst=5"))
    XCTAssertEqual(systemd.stateDirectory, "mydaemon")
    XCTAssertEqual(scenario.launches[0].expect.systemd?.subState, "auto-restart")
    XCTAssertEqual(scenario.launches[0].expect.systemd?.execMainStatus, 11)
    XCTAssertEqual(scenario.launches[1].expect.startedAt, 1.5...3.5)
    XCTAssertEqual(scenario.launches[2].systemctl?.command, .stop)
    XCTAssertEqual(scenario.launches[2].systemctl?.afterEvent, "launching_finished")
    XCTAssertEqual(scenario.launches[2].expect.journalContains.count, 2)
  }

  func testInlineUnitsDropinsAndUsers() throws {
    let yaml = """
      name: inline
      systemd:
        unit: |
          [Service]
          Type=notify
          StateDirectory=app other
        users: [app-user]
        dropin: "[Service]\\nUser=app-user\\n"
      launches:
        - start: reboot
          systemctl: { command: kill, after_event: launch, signal: SIGABRT }
          expect: { systemd: { state_directory_mode: "0700", result: watchdog }, journal_lacks: [timed out] }
      """
    let scenario = try ScenarioLoader.parse(yaml, path: "s.yaml")
    let systemd = try XCTUnwrap(scenario.systemd)
    XCTAssertEqual(systemd.unitName, "chaos.service")
    XCTAssertEqual(systemd.users, ["app-user"])
    XCTAssertEqual(systemd.stateDirectory, "app")
    XCTAssertEqual(scenario.launches[0].systemdStart, .reboot)
    XCTAssertEqual(scenario.launches[0].systemctl?.signal, SIGABRT)
    XCTAssertEqual(scenario.launches[0].expect.systemd?.stateDirectoryMode, 0o700)
    XCTAssertEqual(scenario.launches[0].expect.journalLacks, ["timed out"])
  }

  func testEachMistakeIsLocated() {
    let unit = "systemd: { unit: \"[Service]\\nType=notify\\n\" }\n"
    assertError(
      "name: x\nlaunches:\n  - start: systemctl\n    expect: {}\n", line: 3, column: 12,
      "'start' needs 'systemd:'")
    assertError(
      "name: x\nlaunches:\n  - expect: { journal_contains: [a] }\n", line: 3, column: 33,
      "'journal_contains' needs 'systemd:'")
    assertError(
      "name: x\nsystemd: { unit: missing.service }\nlaunches:\n  - expect: {}\n", line: 2, column: 18,
      "cannot read the unit file")
    assertError(
      "name: x\nsystemd: { unit: \"[Unit]\\n\" }\nlaunches:\n  - expect: {}\n", line: 2, column: 18,
      "the unit has no [Service] section")
    assertError(
      unit + "name: x\nlaunches:\n  - start: later\n    expect: {}\n", line: 4, column: 12,
      "unknown start 'later' (known: systemctl, automatic, restart, reboot)")
    assertError(
      unit + "name: x\nlaunches:\n  - systemctl: { command: stop }\n    expect: {}\n", line: 4, column: 16,
      "systemctl needs 'command' and 'after_event'")
    assertError(
      unit + "name: x\nlaunches:\n  - systemctl: { command: stop, after_event: launch, signal: SIGTERM }\n"
        + "    expect: {}\n", line: 4, column: 62, "'signal' goes with command: kill")
    assertError(
      unit + "name: x\nlaunches:\n  - parallel: 2\n    expect: {}\n", line: 4, column: 15,
      "'parallel' cannot go with 'systemd'")
    assertError(
      unit + "name: x\nsupervisor: {}\nlaunches:\n  - expect: {}\n", line: 3, column: 13,
      "'supervisor' cannot go with 'systemd'")
    assertError(
      unit + "name: x\nlaunches:\n  - expect: { systemd: { state_directory_mode: \"700\" } }\n", line: 4,
      column: 48, "'state_directory_mode' is an octal mode like 0700")
    assertError(
      unit + "name: x\nlaunches:\n  - expect: { started_at: { min: 5s, max: 1s } }\n", line: 4, column: 27,
      "'started_at': min is more than max")
    assertError(
      unit + "name: x\nlaunches:\n  - systemctl: { command: power-cut, after_event: launch }\n    expect: {}\n"
        + "  - expect: {}\n", line: 6, column: 1, "this one needs 'start: reboot'")
  }
}
