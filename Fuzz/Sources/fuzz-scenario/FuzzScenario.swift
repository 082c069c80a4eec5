import CFuzzDriver
import ChaosKit
import Foundation

// Any bytes as a scenario file: a ScenarioError is fine, a crash or a hang is not.

/// A file for the load path, in a scratch directory removed at exit.
private let scenarioPath: String = {
  let base = ProcessInfo.processInfo.environment["FUZZ_SCRATCH"] ?? NSTemporaryDirectory()
  let directory = (base as NSString).appendingPathComponent("fuzz-scenario-\(getpid())")
  try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
  atexit { try? FileManager.default.removeItem(atPath: (scenarioPath as NSString).deletingLastPathComponent) }
  return directory + "/fuzz.yaml"
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
  let buffer = UnsafeBufferPointer(start: data, count: size)
  if let text = String(validating: buffer, as: UTF8.self) {
    check(Result { () throws(ScenarioError) in try ScenarioLoader.parse(text, path: "fuzz.yaml") })
  }
  guard FileManager.default.createFile(atPath: scenarioPath, contents: Data(buffer)) else {
    fatalError("cannot write \(scenarioPath)")
  }
  check(Result { () throws(ScenarioError) in try ScenarioLoader.load(path: scenarioPath) })
  return 0
}

/// An error must locate itself (or say it cannot) and describe itself.
private func check(_ result: Result<Scenario, ScenarioError>) {
  guard case .failure(let error) = result else { return }
  precondition(error.line >= 0 && error.column >= 0, "negative position in \(error)")
  precondition(!error.message.isEmpty, "empty message in \(error)")
  _ = error.description
}

/// The entry point SwiftPM links as `main` (see CFuzzDriver): libFuzzer's driver on `fuzz`.
@_cdecl("fuzz_scenario_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
  var argc = argc
  var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = argv
  return LLVMFuzzerRunDriver(&argc, &argv) { data, size in data.map { fuzz($0, size) } ?? 0 }
}
