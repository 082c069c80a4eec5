import Foundation
import XCTest

@testable import ChaosKit

/// `times:` in an `events:` entry: exactly that many of the launch's events match it (a stop
/// recorded once, an action performed once), wherever they fall.
final class EventTimesTests: XCTestCase {
  func expectation(_ events: String) throws -> Expectation {
    let yaml = "name: t\nlaunches:\n  - expect:\n      events: \(events)\n"
    return try XCTUnwrap(ScenarioLoader.parse(yaml, path: "t.yaml").launches.first).expect
  }

  func observation(_ names: [String]) -> Observation {
    let events = names.enumerated().map { index, name in
      TargetEvent(name: name, pid: 1, time: UInt64(index), fields: ["event": .string(name)], line: index + 1)
    }
    return Observation(end: .exited(0), events: events, crash: nil, backtrace: nil, stateDirectory: "/nonexistent")
  }

  func testTimesIsReadOutOfTheFields() throws {
    let expect = try expectation("[{ event: stop_requested, times: 1 }, launching_finished]")
    XCTAssertEqual(expect.events.first?.name, "stop_requested")
    XCTAssertEqual(expect.events.first?.times, 1)
    XCTAssertEqual(expect.events.first?.fields, [:])
    XCTAssertNil(expect.events.last?.times)
  }

  func testExactlyTimesPassesAndAnyOtherNumberFails() throws {
    let expect = try expectation("[{ event: stop_requested, times: 1 }, launching_finished]")
    XCTAssertEqual(Checker.check(expect, observation(["stop_requested", "launching_finished"])), [])
    let twice = Checker.check(expect, observation(["stop_requested", "stop_requested", "launching_finished"]))
    XCTAssertEqual(twice.map(\.kind), [.events])
    XCTAssertTrue(twice.first?.message.contains("stop_requested ×1") == true, "\(twice)")
    XCTAssertTrue(twice.first?.message.contains("saw 2 of them") == true, "\(twice)")
    let none = Checker.check(expect, observation(["launching_finished"]))
    XCTAssertEqual(none.map(\.kind), [.events])
    XCTAssertTrue(none.first?.message.contains("saw 0 of them") == true, "\(none)")
    // Counted, not ordered: the one stop_requested may come after the entry that follows it.
    XCTAssertEqual(Checker.check(expect, observation(["launching_finished", "stop_requested"])), [])
  }

  func testTimesBelowOneAndTimesOutsideEventsAreErrors() {
    for (yaml, message) in [
      ("name: t\nlaunches:\n  - expect:\n      events: [{ event: x, times: 0 }]\n", "at least 1"),
      ("name: t\nlaunches:\n  - expect:\n      events: [{ event: x, times: two }]\n", "whole number"),
      (
        "name: t\nlaunches:\n  - expect:\n      no_events: [{ event: x, times: 1 }]\n",
        "belongs to an entry of 'events'"
      ),
    ] {
      XCTAssertThrowsError(try ScenarioLoader.parse(yaml, path: "t.yaml")) { error in
        let error = error as? ScenarioError
        XCTAssertEqual(error?.path, "t.yaml")
        XCTAssertEqual(error?.line, 4)
        XCTAssertTrue(error?.message.contains(message) == true, "\(String(describing: error)) lacks \(message)")
      }
    }
  }
}
