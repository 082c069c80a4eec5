import Foundation
import XCTest

@testable import LaunchProtection

/// When several crash reports wait in the state directory (a crash after the launch and a
/// sibling's, say), the next launch takes the newest as the previous crash and consumes them all.
final class CrashReportChoiceTests: XCTestCase {
  private func report(_ directory: String, pid: Int, signal: String, at time: Double) throws {
    let path = "\(directory)/crash-\(pid)-\(pid).json"
    let line = #"{"signal_name":"\#(signal)","pid":\#(pid),"after_launch":true,"frames":[]}"# + "\n"
    try Data(line.utf8).write(to: URL(fileURLWithPath: path))
    try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSince1970: time)], ofItemAtPath: path)
  }

  func testTheNewestReportIsThePreviousCrash() throws {
    let launches = SimulatedLaunches()
    let directory = launches.stateDirectory
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    // Listed by name, the newest comes first, the oldest in the middle.
    try report(directory, pid: 301, signal: "SIGBUS", at: 1_700_000_300)
    try report(directory, pid: 302, signal: "SIGSEGV", at: 1_700_000_100)
    try report(directory, pid: 303, signal: "SIGILL", at: 1_700_000_200)
    let organizer = launches.organizer()
    organizer.finishLaunching(policy: .threshold(100), launch: {}, protect: { _ in })
    XCTAssertEqual(organizer.decision?.previousCrash?.type, "SIGBUS")
    XCTAssertEqual(organizer.decision?.previousCrash?.pid, 301)
    XCTAssertEqual(try launches.state()?.lastCrashCause?.type, "SIGBUS")
    let left = try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasPrefix("crash-") }
    XCTAssertEqual(left, [], "every report consumed")
  }

  /// The cause's detail says which thread crashed: the main thread, or a thread's id and name.
  func testTheDetailNamesTheCrashedThread() throws {
    let directory = SimulatedLaunches().stateDirectory
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    let main = directory + "/crash-1-1.json"
    try Data(#"{"signal_name":"SIGSEGV","main_thread":true,"thread":41,"frames":["a"]}"#.utf8)
      .write(to: URL(fileURLWithPath: main))
    XCTAssertEqual(CrashReports.parse(path: main)?.detail?.hasPrefix("main thread, "), true)
    XCTAssertEqual(CrashReports.parse(path: main)?.afterLaunch, false, "no after_launch: during the launch")
    let worker = directory + "/crash-2-2.json"
    try Data(#"{"signal_name":"SIGSEGV","main_thread":false,"thread":42,"thread_name":"io","frames":[]}"#.utf8)
      .write(to: URL(fileURLWithPath: worker))
    XCTAssertEqual(CrashReports.parse(path: worker)?.detail?.hasPrefix("thread 42 io, "), true)
  }

  /// A crash report is consumed only once what it said is on disk: when the launch's state
  /// write fails, the report stays for the next launch.
  func testAReportStaysWhenTheStateWriteFails() throws {
    let launches = SimulatedLaunches()
    let directory = launches.stateDirectory
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    try report(directory, pid: 401, signal: "SIGSEGV", at: 1_700_000_000)
    try launches.failpoints.configure("store.write=return(EIO)")
    launches.organizer().finishLaunching(policy: .threshold(100), launch: {}, protect: { _ in })
    let left = try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasPrefix("crash-") }
    XCTAssertEqual(left, ["crash-401-401.json"], "kept for the next launch")
  }

  /// A problem that is not a failed write (a corrupt state file, moved aside) does not keep
  /// the reports: the state that records them was written.
  func testAReportIsConsumedWhenOnlyTheOldStateWasBad() throws {
    let launches = SimulatedLaunches()
    let directory = launches.stateDirectory
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    try Data("not json".utf8).write(to: URL(fileURLWithPath: directory + "/launch-state.json"))
    try report(directory, pid: 501, signal: "SIGSEGV", at: 1_700_000_000)
    let recorder = Recorder()
    launches.organizer(observe: recorder).finishLaunching(policy: .threshold(100), launch: {}, protect: { _ in })
    XCTAssertEqual(recorder.count(of: "state_problem corrupt"), 1, "\(recorder.all)")
    let left = try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasPrefix("crash-") }
    XCTAssertEqual(left, [], "consumed: the new state records it")
    XCTAssertEqual(try launches.state()?.lastCrashCause?.pid, 501)
  }
}
