import Failpoints
import Foundation

// The processes `WholeProcessBenchmark` starts: SwiftPM and binutils, and the timed programs.
extension WholeProcessBenchmark {
  /// Copies the programs into `workDirectory/bin-<linkage>`, read and written whole, as an
  /// image's `COPY` installs a binary. Run straight from the linker's output, the same binary
  /// took more page faults and CPU time here (protected-launch 276 faults and 1.75 ms against
  /// 260 and 1.50 ms from a copy; the hello 192 and 1.26 ms against 184 and 1.10 ms), which
  /// weighs on the larger binary: the bench timed that until 2026-11-26.
  func install(_ directory: String, linkage: String) throws -> String {
    let target = workDirectory + "/bin-" + linkage
    try FileManager.default.createDirectory(atPath: target, withIntermediateDirectories: true)
    for name in Self.programs {
      let path = target + "/" + name
      try Data(contentsOf: URL(fileURLWithPath: directory + "/" + name)).write(to: URL(fileURLWithPath: path))
      guard chmod(path, 0o755) == 0 else { throw BenchError("cannot make \(path) executable: errno \(errno)") }
    }
    return target
  }

  @discardableResult
  static func swift(_ arguments: [String]) throws -> String {
    try run(["swift"] + arguments)
  }

  /// `command` through `/usr/bin/env`; its output, or an error with it when it fails.
  @discardableResult
  static func run(_ command: [String]) throws -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = command
    let output = Pipe()
    process.standardOutput = output
    process.standardError = output
    try process.run()
    let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    guard process.terminationStatus == 0 else {
      throw BenchError("\(command.joined(separator: " ")) failed:\n\(text.suffix(2000))")
    }
    return text
  }

  static func size(_ path: String) throws -> Int {
    var info = stat()
    guard stat(path, &info) == 0 else { throw BenchError("cannot stat \(path): errno \(errno)") }
    return Int(info.st_size)
  }

  /// The size of a copy of `path` stripped by `strip option` (binutils), bytes.
  static func strippedSize(_ path: String, option: String) throws -> Int {
    let copy = path + ".stripped"
    defer { unlink(copy) }
    try run(["strip", option, "-o", copy, path])
    return try size(copy)
  }

  /// The 1-minute load average, or nil when `/proc/loadavg` cannot be read.
  static func loadAverage() -> Double? {
    guard let text = try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8) else { return nil }
    return text.split(separator: " ").first.flatMap { Double($0) }
  }

  /// One run's wall-clock and CPU time.
  struct Run {
    /// `posix_spawn` to `waitpid`, ns.
    var nanoseconds: UInt64
    /// User + system CPU time of the child, µs (`wait4`).
    var cpuMicroseconds: Int
  }

  /// One run: ns from `posix_spawn` to `wait4`, and the child's CPU time.
  static func time(_ path: String, arguments: [String]) throws -> Run {
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
    let argv: [UnsafeMutablePointer<CChar>?] = ([path] + arguments).map { strdup($0) } + [nil]
    defer { for pointer in argv { free(pointer) } }
    var pid: pid_t = 0
    let started = MonotonicClock.nanoseconds()
    let spawned = posix_spawn(&pid, path, &actions, nil, argv, environ)
    guard spawned == 0 else { throw BenchError("cannot spawn \(path): errno \(spawned)") }
    var status: Int32 = 0
    var usage = rusage()
    while wait4(pid, &status, 0, &usage) < 0 && errno == EINTR {}
    let ended = MonotonicClock.nanoseconds()
    guard status == 0 else { throw BenchError("\(path) exited with wait status \(status)") }
    func microseconds(_ time: timeval) -> Int { Int(time.tv_sec) * 1_000_000 + Int(time.tv_usec) }
    return Run(
      nanoseconds: ended - started, cpuMicroseconds: microseconds(usage.ru_utime) + microseconds(usage.ru_stime))
  }

  static func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    return sorted.isEmpty ? 0 : sorted[sorted.count / 2]
  }
}
