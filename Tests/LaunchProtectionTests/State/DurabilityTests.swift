import Foundation
import TestSupport
import XCTest

/// The store's write protocol in each durability mode, observed with strace in a real process.
/// Without a power cut a missing fsync would be invisible to any crash scenario; the
/// system-call order is not.
final class DurabilityTests: XCTestCase {
  /// Runs the reference app (one clean launch) under strace and returns the traced calls.
  private func tracedLaunch(durability: String, launches: Int = 1) throws -> (lines: [String], stateDirectory: String) {
    let strace = try XCTUnwrap(
      ["/usr/bin/strace", "/bin/strace"].first { FileManager.default.isExecutableFile(atPath: $0) },
      "strace is installed by CI/setup")
    let directory = TemporaryDirectory()
    let trace = directory.file("trace.txt")
    let environment = [
      "CHAOS_STATE_DIR": directory.file("state"), "CHAOS_EVENTS": directory.file("events.ndjson"),
      "CHAOS_APP": "{\"crash_capture\": false, \"durability\": \"\(durability)\"}",
    ]
    for _ in 1..<launches {
      XCTAssertEqual(ChildProcess.run(ChildProcess.product("chaos-target"), environment: environment), .exited(0))
    }
    let termination = ChildProcess.run(
      strace,
      arguments: [
        "-f", "-qq", "-e", "trace=openat,fsync,fdatasync,sync_file_range,syncfs,rename,renameat,renameat2,pwrite64",
        "-o", trace, ChildProcess.product("chaos-target"),
      ],
      environment: environment)
    XCTAssertEqual(termination, .exited(0))
    let lines = try String(contentsOfFile: trace, encoding: .utf8).split(separator: "\n").map(String.init)
    return (lines, directory.file("state"))
  }

  private func descriptor(_ line: String) throws -> Int {
    try XCTUnwrap(line.split(separator: "=").last.flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }, line)
  }

  func testPowerLossModeFsyncsTheFileBeforeRenameAndTheDirectoryAfter() throws {
    let (lines, stateDirectory) = try tracedLaunch(durability: "powerLoss")
    // The first durable write: the sentinel of finishLaunching.
    let tempOpen = try XCTUnwrap(
      lines.firstIndex { $0.contains("openat(") && $0.contains("launch-state.json.tmp-") }, "temp file opened")
    let tempFD = try descriptor(lines[tempOpen])
    let rename = try XCTUnwrap(
      lines[tempOpen...].firstIndex { $0.contains("rename") && $0.contains("\"launch-state.json\")") }, "renamed")
    XCTAssertTrue(
      lines[tempOpen..<rename].contains { $0.contains("fsync(\(tempFD))") },
      "fsync of the temp file before the rename:\n\(lines[tempOpen...rename].joined(separator: "\n"))")
    // The directory was opened (O_PATH, O_NOFOLLOW) before the launch's first update and is
    // kept; its fsync goes through `.` opened for reading from it, after the rename.
    let directoryOpen = try XCTUnwrap(
      lines[..<tempOpen].lastIndex {
        $0.contains("openat(AT_FDCWD, \"\(stateDirectory)\"") && $0.contains("O_PATH") && $0.contains("O_NOFOLLOW")
      }, "directory opened before the update")
    let directoryFD = try descriptor(lines[directoryOpen])
    let readable = try XCTUnwrap(
      lines[rename...].firstIndex { $0.contains("openat(\(directoryFD), \".\"") }, "the directory opened to be synced")
    let readableFD = try descriptor(lines[readable])
    XCTAssertTrue(
      lines[readable...].prefix(4).contains { $0.contains("fsync(\(readableFD))") },
      "fsync of the directory after the rename")
  }

  func testProcessCrashModeNeverSyncsAndUpdatesOneSlotInPlace() throws {
    // The second launch of a directory: the file exists, so both updates are in place.
    let (lines, _) = try tracedLaunch(durability: "processCrash", launches: 2)
    // The app's own data files may be synced (Foundation's atomic writes); the store's may not.
    let storeSyncs = lines.enumerated().filter { index, line in
      guard let call = ["fsync(", "fdatasync(", "sync_file_range(", "syncfs("].first(where: line.contains),
        let fd = line.components(separatedBy: call).last?.split(whereSeparator: { !$0.isNumber }).first
      else { return false }
      let opened = lines[..<index].last { $0.contains("openat(") && $0.hasSuffix("= \(fd)") }
      return opened.map { $0.contains("/state/launch-state") || $0.contains("/state\", O_RDONLY|O_DIRECTORY") } ?? true
    }
    XCTAssertEqual(storeSyncs.map(\.element), [], "no sync of the state file or directory on the launch path")
    XCTAssertFalse(lines.contains { $0.contains("launch-state.json.tmp-") }, "no temp file")
    XCTAssertFalse(lines.contains { $0.contains("rename") && $0.contains("launch-state.json") }, "no rename")
    var writes: [(fd: Int, offset: Int)] = []
    for (index, line) in lines.enumerated() where line.hasPrefix("pwrite64(") || line.contains(" pwrite64(") {
      // Only the state file's writes: the descriptor opened for it just before (read-write: the
      // update reads and writes through one descriptor).
      guard
        let open = lines[..<index].lastIndex(where: {
          $0.contains("launch-state.json\", O_WRONLY") || $0.contains("launch-state.json\", O_RDWR")
        }),
        let fd = try? descriptor(lines[open]), line.contains("pwrite64(\(fd),")
      else { continue }
      let fields = line.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
      let offset = try XCTUnwrap(fields.last?.split(separator: ")").first.flatMap { Int($0) }, line)
      writes.append((fd, offset))
    }
    XCTAssertEqual(
      writes.count, 2, "finishLaunching and launchingFinished each write one slot:\n\(lines.joined(separator: "\n"))")
    XCTAssertEqual(Set(writes.map(\.offset)).count, 2, "the two updates alternate slots")
  }
}
