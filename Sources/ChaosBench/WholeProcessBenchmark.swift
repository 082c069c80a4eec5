import Failpoints
import Foundation

/// What linking LaunchProtection costs a whole program, seen from outside the process: the
/// `protected-launch` program of `Examples/Footprint` (`finishLaunching` + `launchingFinished`
/// and nothing else) against `hello-essentials` (a hello that imports FoundationEssentials),
/// both built release, dynamically and with `--static-swift-stdlib`. Sizes are the files as
/// built; start-to-exit is `posix_spawn` to `waitpid`, in pairs whose order alternates. (Not peak
/// RSS: a child of `posix_spawn` reports the parent's, whose memory it shared until its exec.)
public struct WholeProcessBenchmark: Sendable {
  /// One program's figures.
  public struct Program: Codable, Sendable {
    /// The size of the release binary with `--static-swift-stdlib`, bytes.
    public var staticBytes: Int
    /// The size of the dynamically linked release binary, bytes.
    public var dynamicBytes: Int
    /// Start-to-exit of the dynamic binary, µs.
    public var dynamicRun: LatencySummary
    /// Start-to-exit of the static binary, µs.
    public var staticRun: LatencySummary
  }

  /// Both programs and their ratios.
  public struct Report: Codable, Sendable {
    /// `hello-essentials`.
    public var hello: Program
    /// `protected-launch`.
    public var protected: Program
    /// Pairs timed per linkage.
    public var pairs: Int
    /// Median over the pairs of protected / hello start-to-exit, dynamic binaries.
    public var dynamicRatio: Double
    /// The same, static binaries.
    public var staticRatio: Double
  }

  /// `Examples/Footprint`.
  public var package: String
  /// Timed pairs per linkage (after one untimed pair).
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

  /// Builds the four binaries (SwiftPM rebuilds only what changed), then measures.
  public func run(progress: (String) -> Void) throws -> Report {
    progress("building Examples/Footprint, release, dynamic and --static-swift-stdlib")
    let dynamic = try build(static: false)
    let statics = try build(static: true)
    let state = workDirectory + "/whole-process-state"
    let programs = ["hello-essentials", "protected-launch"]
    var runs: [String: [(linkage: String, nanoseconds: UInt64)]] = [:]
    var ratios: [String: [Double]] = ["dynamic": [], "static": []]
    progress("start-to-exit, \(pairs) interleaved pairs per linkage")
    for pair in 0...pairs {
      for (linkage, directory) in [("dynamic", dynamic), ("static", statics)] {
        // Alternate which program goes first, so neither always follows the other.
        let order = pair % 2 == 0 ? programs : programs.reversed()
        var times: [String: UInt64] = [:]
        for name in order {
          let elapsed = try Self.time(directory + "/" + name, arguments: name == "protected-launch" ? [state] : [])
          times[name] = elapsed
          if pair > 0 { runs[name, default: []].append((linkage, elapsed)) }
        }
        if pair > 0 {
          ratios[linkage]!.append(Double(times["protected-launch"]!) / Double(times["hello-essentials"]!))
        }
      }
    }
    func program(_ name: String) throws -> Program {
      let samples = runs[name] ?? []
      return Program(
        staticBytes: try Self.size(statics + "/" + name), dynamicBytes: try Self.size(dynamic + "/" + name),
        dynamicRun: LatencySummary(nanoseconds: samples.filter { $0.linkage == "dynamic" }.map(\.nanoseconds)),
        staticRun: LatencySummary(nanoseconds: samples.filter { $0.linkage == "static" }.map(\.nanoseconds)))
    }
    return Report(
      hello: try program("hello-essentials"), protected: try program("protected-launch"), pairs: pairs,
      dynamicRatio: Self.median(ratios["dynamic"]!), staticRatio: Self.median(ratios["static"]!))
  }

  /// `swift build -c release` of both programs; the directory the binaries are in.
  private func build(static: Bool) throws -> String {
    var arguments = ["build", "-c", "release", "--package-path", package]
    // Separate scratch directories: the two linkages would overwrite each other's binaries.
    if `static` { arguments += ["--static-swift-stdlib", "--scratch-path", package + "/.build-static"] }
    for product in ["hello-essentials", "protected-launch"] {
      try Self.swift(arguments + ["--product", product])
    }
    return try Self.swift(arguments + ["--show-bin-path"]).trimmingCharacters(in: .whitespacesAndNewlines)
  }

  @discardableResult
  private static func swift(_ arguments: [String]) throws -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["swift"] + arguments
    let output = Pipe()
    process.standardOutput = output
    process.standardError = output
    try process.run()
    let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    guard process.terminationStatus == 0 else {
      throw BenchError("swift \(arguments.joined(separator: " ")) failed:\n\(text.suffix(2000))")
    }
    return text
  }

  private static func size(_ path: String) throws -> Int {
    var info = stat()
    guard stat(path, &info) == 0 else { throw BenchError("cannot stat \(path): errno \(errno)") }
    return Int(info.st_size)
  }

  /// One run: ns from `posix_spawn` to `waitpid`.
  private static func time(_ path: String, arguments: [String]) throws -> UInt64 {
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
    while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    let ended = MonotonicClock.nanoseconds()
    guard status == 0 else { throw BenchError("\(path) exited with wait status \(status)") }
    return ended - started
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
    let hello = report.hello
    let protected = report.protected
    return [
      "",
      "Whole process: Examples/Footprint's protected-launch (finishLaunching + launchingFinished) "
        + "vs hello-essentials (FoundationEssentials hello), release",
      "binary, --static-swift-stdlib: \(megabytes(protected.staticBytes)) vs \(megabytes(hello.staticBytes)) "
        + "(\(growth(protected.staticBytes, hello.staticBytes)))",
      "binary, dynamic: \(megabytes(protected.dynamicBytes)) vs \(megabytes(hello.dynamicBytes)) "
        + "(\(growth(protected.dynamicBytes, hello.dynamicBytes)))",
      "start-to-exit, median of \(report.pairs) interleaved pairs' ratios: dynamic "
        + String(format: "%.2f×", report.dynamicRatio) + ", static " + String(format: "%.2f×", report.staticRatio)
        + " (target ≤ 1.3×)",
      BenchTable.render([
        ("protected-launch, dynamic", protected.dynamicRun), ("hello-essentials, dynamic", hello.dynamicRun),
        ("protected-launch, static", protected.staticRun), ("hello-essentials, static", hello.staticRun),
      ]),
    ].joined(separator: "\n")
  }
}
