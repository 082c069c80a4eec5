import Foundation

/// One scenario file as a test case, for running a folder of scenarios from your own test
/// target — one case per file, each with a readable failure:
///
/// ```swift
/// import ChaosKit
/// import Testing
///
/// @Test(arguments: ScenarioCase.all(in: "Scenarios"))
/// func scenario(_ scenario: ScenarioCase) {
///   let result = scenario.run(target: ScenarioCase.executable("mydaemon"))
///   #expect(result.passed, Comment(rawValue: result.report))
/// }
/// ```
///
/// A file that does not load is still a case: running it fails with the file, line and cause.
public struct ScenarioCase: Sendable, CustomStringConvertible {
  /// The scenario file.
  public let path: String
  /// The loaded scenario, or why it could not be loaded.
  public let scenario: Result<Scenario, ScenarioError>
  /// The package root the paths were found from (artifacts go under its `.build/`).
  public let packageRoot: String

  /// `group/file` (e.g. `counting/segv-counts-once`), the name a test report shows.
  public var description: String {
    let url = URL(fileURLWithPath: path)
    return url.deletingLastPathComponent().lastPathComponent + "/" + url.deletingPathExtension().lastPathComponent
  }

  /// Every scenario file under `folder` (recursive, sorted). A relative `folder` is taken from
  /// the root of the package whose test file calls this (found upwards from `filePath`).
  /// A folder that cannot be read gives one failing case naming it.
  public static func all(in folder: String, filePath: String = #filePath) -> [ScenarioCase] {
    let root = packageRoot(from: filePath)
    let directory = folder.hasPrefix("/") ? folder : root + "/" + folder
    do {
      return try ScenarioDiscovery.files(in: [directory]).map { path in
        ScenarioCase(
          path: path, scenario: Result { () throws(ScenarioError) in try ScenarioLoader.load(path: path) },
          packageRoot: root)
      }
    } catch {
      return [ScenarioCase(path: directory, scenario: .failure(error), packageRoot: root)]
    }
  }

  /// Runs the scenario's launches against `target` (a path; nil keeps the scenario's own
  /// `target:`), exactly as `chaos run` does. A failing run's stdout, stderr, events and state
  /// stay under `artifacts` (default `<package>/.build/chaos-artifacts`); `seed` is `CHAOS_SEED`.
  public func run(target: String?, artifacts: String? = nil, seed: UInt64? = nil) -> ScenarioResult {
    var options = RunOptions()
    options.artifactsDirectory = artifacts ?? packageRoot + "/.build/chaos-artifacts"
    options.targetOverride = target
    options.seed = seed
    switch scenario {
    case .success(let scenario):
      return ScenarioRunner(options: options).run(scenario)
    case .failure(let error):
      return ScenarioResult(
        path: path, name: description, group: "", status: .error, messages: [error.description], processes: [],
        seconds: 0, artifacts: nil)
    }
  }

  /// The path of an executable product built next to the running test bundle (what
  /// `swift test` builds when the test target depends on that executable target).
  public static func executable(_ name: String) -> String { productsDirectory + "/" + name }

  /// The folder of the running executable: the build products folder under `swift test` and
  /// for `chaos` itself.
  static let productsDirectory: String = {
    let running =
      (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
    return URL(fileURLWithPath: running).deletingLastPathComponent().path
  }()

  /// The nearest folder above `filePath` that holds a `Package.swift`.
  static func packageRoot(from filePath: String) -> String {
    var directory = URL(fileURLWithPath: filePath).deletingLastPathComponent()
    while directory.path != "/" {
      if FileManager.default.fileExists(atPath: directory.appendingPathComponent("Package.swift").path) {
        return directory.path
      }
      directory = directory.deletingLastPathComponent()
    }
    return FileManager.default.currentDirectoryPath
  }
}

extension ScenarioResult {
  /// Everything a failing test should show: status, file, and for each failed expectation the
  /// launch (and line), what was expected, what was seen, the target's last stderr lines and
  /// where the artifacts are. Empty for a pass.
  public var report: String {
    guard !passed else { return "" }
    return (["scenario \(status): \(path) — \(name)"] + messages).joined(separator: "\n")
  }
}
