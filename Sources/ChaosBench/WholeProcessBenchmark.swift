import Failpoints
import Foundation

/// What linking LaunchProtection costs a whole program, seen from outside the process: the
/// `protected-launch` program of `Examples/Footprint` (`finishLaunching` + `launchingFinished`
/// and nothing else) against `hello-essentials` (a hello that imports FoundationEssentials),
/// both built release, dynamically and with `--static-swift-stdlib`. Sizes are the files as
/// built (what `swift build -c release` ships: SwiftPM's release builds carry `-g` debug info
/// and a symbol table), and, beside them, the static files after `strip --strip-debug` and
/// `strip --strip-all`, which say how much of a growth is debug info and symbols rather than
/// code and data. Three context programs run beside them: `hello-concurrency` (the hello with
/// Swift's concurrency runtime and libdispatch linked, as by any async code),
/// `protected-launch-without-stop-watcher` (`ignoreTermination = false`) and `launch-floor`
/// (the launch's system calls and watcher thread, made from C). Start-to-exit is
/// `posix_spawn` to `wait4` of copies of the binaries (`install`), in rounds that run every
/// program once, in an order that rotates from round to round; beside it, each run's CPU time
/// (user + system), which a machine loaded by other work disturbs less than the wall clock.
/// (Not peak RSS: a child of `posix_spawn` reports the parent's, whose memory it shared until
/// its exec.)
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
    /// `launch-floor`: the protected launch's system calls and watcher thread, made from C.
    public var launchFloor: Program? = nil
    /// Rounds timed per linkage (each runs every program once).
    public var pairs: Int
    /// Median over the rounds of protected / hello start-to-exit, dynamic binaries.
    public var dynamicRatio: Double
    /// The same, static binaries.
    public var staticRatio: Double
    /// Median over the rounds of protected / hello CPU time (user + system), dynamic binaries.
    public var dynamicCPURatio: Double
    /// The same, static binaries.
    public var staticCPURatio: Double
    /// Median over the rounds of `hello-concurrency` / hello start-to-exit, static binaries.
    public var helloConcurrencyStaticRatio: Double
    /// Median over the rounds of `protected-launch-without-stop-watcher` / hello start-to-exit,
    /// static binaries.
    public var withoutStopWatcherStaticRatio: Double
    /// Median over the rounds of `launch-floor` / hello start-to-exit, static binaries: the part
    /// of ``staticRatio`` that the launch's Swift code does not cause.
    public var launchFloorStaticRatio: Double? = nil
    /// The 1-minute load average when the runs began (`/proc/loadavg`): the machine's other work.
    public var loadAverage: Double?
    /// Bytes of defined symbols (code and data, `nm -S`) per library module in the static
    /// `protected-launch`: LaunchProtection, Failpoints, CCrashCapture.
    public var protectedSymbolBytes: [String: Int]?
    /// Instructions (callgrind) of one whole run of the static `protected-launch` and
    /// `hello-essentials`, start to exit; nil without valgrind.
    public var instructions: [String: UInt64]? = nil
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
    "launch-floor",
  ]
  /// The programs that take no state directory.
  static let hellos: Set = ["hello-essentials", "hello-concurrency"]

  /// Builds the binaries (SwiftPM rebuilds only what changed), then measures.
  public func run(progress: (String) -> Void) throws -> Report {
    progress("building Examples/Footprint, release, dynamic and --static-swift-stdlib")
    let dynamic = try build(static: false)
    let statics = try build(static: true)
    let installed = [
      "dynamic": try install(dynamic, linkage: "dynamic"), "static": try install(statics, linkage: "static"),
    ]
    // A state directory per binary: one shared by two (dynamic and static) sees a new executable
    // at every launch, which resets the count and lists the directory for crash reports.
    func state(_ name: String, _ linkage: String) -> String { workDirectory + "/state-\(name)-\(linkage)" }
    let programs = Self.programs
    var runs: [String: [(linkage: String, nanoseconds: UInt64)]] = [:]
    // Per linkage and program: the rounds' ratios to the hello, wall clock and CPU time.
    var ratios: [String: [String: [Double]]] = [:]
    var cpuRatios: [String: [String: [Double]]] = [:]
    let loadAverage = Self.loadAverage()
    progress("start-to-exit, \(pairs) rounds per linkage, each program once per round")
    for round in 0...pairs {
      for linkage in ["dynamic", "static"] {
        let directory = installed[linkage]!
        // Rotate the order, so that no program always follows the same one.
        let order = (0..<programs.count).map { programs[($0 + round) % programs.count] }
        var times: [String: Run] = [:]
        for name in order {
          let run = try Self.time(
            directory + "/" + name, arguments: Self.hellos.contains(name) ? [] : [state(name, linkage)])
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
      protectedWithoutStopWatcher: try program("protected-launch-without-stop-watcher"),
      launchFloor: try program("launch-floor"), pairs: pairs,
      dynamicRatio: ratio(ratios, "dynamic", "protected-launch"),
      staticRatio: ratio(ratios, "static", "protected-launch"),
      dynamicCPURatio: ratio(cpuRatios, "dynamic", "protected-launch"),
      staticCPURatio: ratio(cpuRatios, "static", "protected-launch"),
      helloConcurrencyStaticRatio: ratio(ratios, "static", "hello-concurrency"),
      withoutStopWatcherStaticRatio: ratio(ratios, "static", "protected-launch-without-stop-watcher"),
      launchFloorStaticRatio: ratio(ratios, "static", "launch-floor"),
      loadAverage: loadAverage, protectedSymbolBytes: try Self.symbolBytes(statics + "/protected-launch"),
      instructions: try instructions(statics))
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
        + "(\(growth(protected.staticBytes, hello.staticBytes)), target ≤ 3 MB); after strip --strip-debug "
        + growth(protected.staticWithoutDebugInfoBytes, hello.staticWithoutDebugInfoBytes)
        + ", after strip --strip-all "
        + growth(protected.staticStrippedBytes, hello.staticStrippedBytes)
        + String(
          format: " (%+.0f KiB, target ≤ 900 KiB)",
          Double(protected.staticStrippedBytes - hello.staticStrippedBytes) / 1024),
      "protected-launch's symbols by module (nm -S): "
        + (report.protectedSymbolBytes.map(WholeProcessBenchmark.describeSymbols) ?? "not measured"),
      "binary, dynamic: \(megabytes(protected.dynamicBytes)) vs \(megabytes(hello.dynamicBytes)) "
        + "(\(growth(protected.dynamicBytes, hello.dynamicBytes)))",
      "start-to-exit, median of \(report.pairs) rounds' ratios: dynamic \(times(report.dynamicRatio)), "
        + "static \(times(report.staticRatio)) (target ≤ 1.15×); CPU time (user + system): dynamic "
        + "\(times(report.dynamicCPURatio)), static \(times(report.staticCPURatio))"
        + (report.loadAverage.map { String(format: "; load average %.2f", $0) } ?? ""),
      "instructions start to exit (callgrind, static): "
        + WholeProcessBenchmark.describeInstructions(report.instructions),
      "context, static: hello-concurrency (the hello with Swift concurrency and libdispatch linked) "
        + "\(growth(concurrency.staticBytes, hello.staticBytes)) (strip --strip-all "
        + "\(growth(concurrency.staticStrippedBytes, hello.staticStrippedBytes))), "
        + "\(times(report.helloConcurrencyStaticRatio)); protected-launch-without-stop-watcher "
        + "\(times(report.withoutStopWatcherStaticRatio)); launch-floor (its system calls and watcher "
        + "thread, from C) \(report.launchFloorStaticRatio.map(times) ?? "not measured")",
      BenchTable.render(
        [
          ("protected-launch, dynamic", protected.dynamicRun), ("hello-essentials, dynamic", hello.dynamicRun),
          ("protected-launch, static", protected.staticRun), ("hello-essentials, static", hello.staticRun),
          ("hello-concurrency, static", concurrency.staticRun),
          ("protected-launch-without-stop-watcher, static", withoutWatcher.staticRun),
        ] + (report.launchFloor.map { [("launch-floor, static", $0.staticRun)] } ?? [])),
    ].joined(separator: "\n")
  }
}
