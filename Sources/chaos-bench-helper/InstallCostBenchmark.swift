import Foundation
import LaunchProtection

/// `chaos-target --bench-install on|off`: how long the first `CrashCapture.install` of a fresh
/// process takes, with the unwind tables prefaulted (`on`, the default) or not. Prints one
/// JSON object; `chaos bench` runs many fresh processes and summarises.
enum InstallCostBenchmark {
  static func run(arguments: [String]) {
    var options = CrashCapture.Options()
    options.prefaultUnwindTables = arguments.first != "off"
    let start = DispatchTime.now().uptimeNanoseconds
    let installed = (try? CrashCapture.install(options)) != nil
    let elapsed = DispatchTime.now().uptimeNanoseconds - start
    let result: [String: Any] = ["install_ns": elapsed, "installed": installed]
    let data = try! JSONSerialization.data(withJSONObject: result, options: [.sortedKeys])
    print(String(decoding: data, as: UTF8.self))
  }
}
