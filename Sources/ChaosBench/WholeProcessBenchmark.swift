import Failpoints
import Foundation

/// What linking LaunchProtection costs a whole program, seen from outside the process: the
/// `protected-launch` program of `Examples/Footprint` (`finishLaunching` + `launchingFinished`
/// and nothing else) against `hello-essentials` (a hello that imports FoundationEssentials),
/// both built release, dynamically and with `--static-swift-stdlib`. Sizes are the files as
/// built (what `swift build -c release` ships: SwiftPM's release builds carry `-g` debug info
/// and a symbol table), and, beside them, the static files after `strip --strip-debug` and
/// `strip --strip-all`, which say how much of a growth is debug info and symbols rather than
/// code and data. Two context programs run beside them: `hello-concurrency` (the hello with
/// Swift's concurrency runtime and libdispatch linked, as by any async code) and
/// `protected-launch-without-stop-watcher` (`ignoreTermination = false`). Start-to-exit is
/// `posix_spawn` to `waitpid`, in rounds that run every program once, in an order that rotates
/// from round to round; beside it, each run's CPU time (user + system, from `wait4`), which a machine loaded by
/// other work disturbs less than the wall clock. (Not peak RSS: a child of `posix_spawn`
/// reports the parent's, whose memory it shared until its exec.)
public struct WholeProcessBenchmark: Sendable {
  /// One program's figures.
  public struct Program: Codable, Sendable {
    /// The size of the release binary with `--static-swift-stdlib`, bytes.
    public var staticBytes: Int
    /// The same after `strip --strip-debug` (symbol table kept), bytes: what is left without
    /// the DWARF that SwiftPM's release builds carry (`-g`).
    public var staticWithoutDebugInfoBytes: Int
    /// The same after `strip --strip-all` (no symbol table either), bytes.
    public var staticStrippedBytes: Int
    /// The size of the dynamically linked release binary, bytes.
    public var dynamicBytes: Int
    /// Start-to-exit of the dynamic binary, µs.
    public var dynamicRun: LatencySummary
    /// Start-to-exit of the static binary, µs.
    public var staticRun: LatencySummary
  }

  /// Both programs and their ratios, and the context programs.
  public struct Report: Codable, Sendable {
    /// `hello-essentials`.
    public var hello: Program
    /// `protected-launch`.
    public var protected: Program
    /// `hello-concurrency`: the hello with Swift concurrency linked.
    public var helloConcurrency: Program
    /// `protected-launch-without-stop-watcher`.
    public var protectedWithoutStopWatcher: Program
    /// Rounds timed per linkage (each runs every program once).
    public var pairs: Int
    /// Median over the pairs of protected / hello start-to-exit, dynamic binaries.
    public var dynamicRatio: Double
    /// The same, static binaries.
    public var staticRatio: Double
    /// Median over the pairs of protected / hello CPU time (user + system), dynamic binaries.
    public var dynamicCPURatio: Double
    /// The same, static binaries.
    public var staticCPURatio: Double
    /// Median over the rounds of `hello-concurrency` / hello start-to-exit, static binaries.
    public var helloConcurrencyStaticRatio: Double
    /// Median over the rounds of `protected-launch-without-stop-watcher` / hello start-to-exit,
    /// static binaries.
    public var withoutStopWatcherStaticRatio: Double
    /// The 1-minute load average when the runs began (`/proc/loadavg`): the machine's other work.
    public var loadAverage: Double?
  }

  /// `Examples/Footprint`.
  public var package: String
  /// Timed rounds per linkage (after one untimed round).
  public var pairs: Int
  /// A scratch directory for the protected program's state.
  public var workDirectory: String

  /// A benchmark of the package at `package`.
  public init(package: String, pairs: Int, workDirectory: String) {
    self.package = package
    self.pairs = pairs
    self.workDirectory = workDirectory
  }

  /// `Examples/Footprint` in the repository `executable` was built in (chaos lives in its
  /// `.build/`), or in the current directory's.
  public static func findPackage(from executable: String) -> String? {
    for start in [executable, FileManager.default.currentDirectoryPath + "/."] {
      var directory = URL(fileURLWithPath: start).resolvingSymlinksInPath().deletingLastPathComponent()
      while directory.path != "/" {
        let candidate = directory.appendingPathComponent("Examples/Footprint")
        if FileManager.default.fileExists(atPath: candidate.appendingPathComponent("Package.swift").path) {
          return candidate.path
        }
        directory.deleteLastPathComponent()
      }
    }
    return nil
  }

  /// The programs timed, the hello first (the ratios' denominator).
  static let programs = [
    "hello-essentials", "protected-launch", "hello-concurrency", "protected-launch-without-stop-watcher",
  ]

  /// Builds the binaries (SwiftPM rebuilds only what changed), then measures.
  public func run(progress: (String) -> Void) throws -> Report {
    progress("building Examples/Footprint, release, dynamic and --static-swift-stdlib")
    let dynamic = try build(static: false)
    let statics = try build(static: true)
    // A state directory per protected program: one shared by two binaries would see the
    // executable change at every launch, which resets the count and looks for crash reports.
    func state(_ name: String) -> String { workDirectory + "/whole-process-state-" + name }
    let programs = Self.programs
    var runs: [String: [(linkage: String, nanoseconds: UInt64)]] = [:]
    // Per linkage and program: the rounds' ratios to the hello, wall clock and CPU time.
    var ratios: [String: [String: [Double]]] = [:]
    var cpuRatios: [String: [String: [Double]]] = [:]
    let loadAverage = Self.loadAverage()
    progress("start-to-exit, \(pairs) rounds per linkage, each program once per round")
    for round in 0...pairs {
      for (linkage, directory) in [("dynamic", dynamic), ("static", statics)] {
        // Rotate the order, so that no program always follows the same one.
        let order = (0..<programs.count).map { programs[($0 + round) % programs.count] }
        var times: [String: Run] = [:]
        for name in order {
          let run = try Self.time(
            directory + "/" + name, arguments: name.hasPrefix("protected-launch") ? [state(name)] : [])
          times[name] = run
          if round > 0 { runs[name, default: []].append((linkage, run.nanoseconds)) }
        }
        guard round > 0, let hello = times["hello-essentials"] else { continue }
        for name in programs.dropFirst() {
          guard let run = times[name] else { continue }
          ratios[linkage, default: [:]][name, default: []].append(Double(run.nanoseconds) / Double(hello.nanoseconds))
          cpuRatios[linkage, default: [:]][name, default: []].append(
            Double(run.cpuMicroseconds) / Double(max(1, hello.cpuMicroseconds)))
        }
      }
    }
    func program(_ name: String) throws -> Program {
      let samples = runs[name] ?? []
      let binary = statics + "/" + name
      return Program(
        staticBytes: try Self.size(binary),
        staticWithoutDebugInfoBytes: try Self.strippedSize(binary, option: "--strip-debug"),
        staticStrippedBytes: try Self.strippedSize(binary, option: "--strip-all"),
        dynamicBytes: try Self.size(dynamic + "/" + name),
        dynamicRun: LatencySummary(nanoseconds: samples.filter { $0.linkage == "dynamic" }.map(\.nanoseconds)),
        staticRun: LatencySummary(nanoseconds: samples.filter { $0.linkage == "static" }.map(\.nanoseconds)))
    }
    func ratio(_ table: [String: [String: [Double]]], _ linkage: String, _ name: String) -> Double {
      Self.median(table[linkage]?[name] ?? [])
    }
    return Report(
      hello: try program("hello-essentials"), protected: try program("protected-launch"),
      helloConcurrency: try program("hello-concurrency"),
      protectedWithoutStopWatcher: try program("protected-launch-without-stop-watcher"), pairs: pairs,
      dynamicRatio: ratio(ratios, "dynamic", "protected-launch"),
      staticRatio: ratio(ratios, "static", "protected-launch"),
      dynamicCPURatio: ratio(cpuRatios, "dynamic", "protected-launch"),
      staticCPURatio: ratio(cpuRatios, "static", "protected-launch"),
      helloConcurrencyStaticRatio: ratio(ratios, "static", "hello-concurrency"),
      withoutStopWatcherStaticRatio: ratio(ratios, "static", "protected-launch-without-stop-watcher"),
      loadAverage: loadAverage)
  }

  /// `swift build -c release` of the programs; the directory the binaries are in.
  private func build(static: Bool) throws -> String {
    var arguments = ["build", "-c", "release", "--package-path", package]
    // Separate scratch directories: the two linkages would overwrite each other's binaries.
    if `static` { arguments += ["--static-swift-stdlib", "--scratch-path", package + "/.build-static"] }
    for product in Self.programs {
      try Self.swift(arguments + ["--product", product])
    }
    return try Self.swift(arguments + ["--show-bin-path"]).trimmingCharacters(in: .whitespacesAndNewlines)
  }

  @discardableResult
  private static func swift(_ arguments: [String]) throws -> String {
    try run(["swift"] + arguments)
  }

  /// `command` through `/usr/bin/env`; its output, or an error with it when it fails.
  @discardableResult
  private static func run(_ command: [String]) throws -> String {
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

  private static func size(_ path: String) throws -> Int {
    var info = stat()
    guard stat(path, &info) == 0 else { throw BenchError("cannot stat \(path): errno \(errno)") }
    return Int(info.st_size)
  }

  /// The size of a copy of `path` stripped by `strip option` (binutils), bytes.
  private static func strippedSize(_ path: String, option: String) throws -> Int {
    let copy = path + ".stripped"
    defer { unlink(copy) }
    try run(["strip", option, "-o", copy, path])
    return try size(copy)
  }

  /// The 1-minute load average, or nil when `/proc/loadavg` cannot be read.
  private static func loadAverage() -> Double? {
    guard let text = try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8) else { return nil }
    return text.split(separator: " ").first.flatMap { Double($0) }
  }

  /// One run's wall-clock and CPU time.
  private struct Run {
    /// `posix_spawn` to `waitpid`, ns.
    var nanoseconds: UInt64
    /// User + system CPU time of the child, µs (`wait4`).
    var cpuMicroseconds: Int
  }

  /// One run: ns from `posix_spawn` to `wait4`, and the child's CPU time.
  private static func time(_ path: String, arguments: [String]) throws -> Run {
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

  private static func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    return sorted.isEmpty ? 0 : sorted[sorted.count / 2]
  }
}

/// A benchmark that could not run, with why.
struct BenchError: Error, CustomStringConvertible {
  var description: String
  init(_ description: String) { self.description = description }
}

extension BenchTables {
  /// The protected program against the FoundationEssentials hello.
  public static func wholeProcess(_ report: WholeProcessBenchmark.Report) -> String {
    func megabytes(_ bytes: Int) -> String { String(format: "%.2f MB", Double(bytes) / 1e6) }
    func growth(_ protected: Int, _ hello: Int) -> String {
      String(format: "%+.2f MB", Double(protected - hello) / 1e6)
    }
    func times(_ ratio: Double) -> String { String(format: "%.2f×", ratio) }
    let hello = report.hello
    let protected = report.protected
    let concurrency = report.helloConcurrency
    let withoutWatcher = report.protectedWithoutStopWatcher
    return [
      "",
      "Whole process: Examples/Footprint's protected-launch (finishLaunching + launchingFinished) "
        + "vs hello-essentials (FoundationEssentials hello), release",
      "binary, --static-swift-stdlib: \(megabytes(protected.staticBytes)) vs \(megabytes(hello.staticBytes)) "
        + "(\(growth(protected.staticBytes, hello.staticBytes)), target ≤ 2 MB); after strip --strip-debug "
        + growth(protected.staticWithoutDebugInfoBytes, hello.staticWithoutDebugInfoBytes)
        + ", after strip --strip-all "
        + growth(protected.staticStrippedBytes, hello.staticStrippedBytes),
      "binary, dynamic: \(megabytes(protected.dynamicBytes)) vs \(megabytes(hello.dynamicBytes)) "
        + "(\(growth(protected.dynamicBytes, hello.dynamicBytes)))",
      "start-to-exit, median of \(report.pairs) rounds' ratios: dynamic \(times(report.dynamicRatio)), "
        + "static \(times(report.staticRatio)) (target ≤ 1.3×); CPU time (user + system): dynamic "
        + "\(times(report.dynamicCPURatio)), static \(times(report.staticCPURatio))"
        + (report.loadAverage.map { String(format: "; load average %.2f", $0) } ?? ""),
      "context, static: hello-concurrency (the hello with Swift concurrency and libdispatch linked) "
        + "\(growth(concurrency.staticBytes, hello.staticBytes)) (strip --strip-all "
        + "\(growth(concurrency.staticStrippedBytes, hello.staticStrippedBytes))), "
        + "\(times(report.helloConcurrencyStaticRatio)); protected-launch-without-stop-watcher "
        + "\(times(report.withoutStopWatcherStaticRatio))",
      BenchTable.render([
        ("protected-launch, dynamic", protected.dynamicRun), ("hello-essentials, dynamic", hello.dynamicRun),
        ("protected-launch, static", protected.staticRun), ("hello-essentials, static", hello.staticRun),
        ("hello-concurrency, static", concurrency.staticRun),
        ("protected-launch-without-stop-watcher, static", withoutWatcher.staticRun),
      ]),
    ].joined(separator: "\n")
  }
}
