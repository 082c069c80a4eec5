import ChaosProbe
import Foundation

// The reference instrumented app: a Linux program whose launch is protected by
// LaunchProtection, organised with LaunchTasks and made a chaos target by ChaosProbe —
// exactly as a user's app would be. `CHAOS_APP` (JSON) shapes it for each scenario.

func fail(_ message: String) -> Never {
  FileHandle.standardError.write(Data("chaos-target: \(message)\n".utf8))
  exit(2)
}

let configuration: AppConfiguration
do {
  configuration = try AppConfiguration.load(from: ProcessInfo.processInfo.environment["CHAOS_APP"])
} catch {
  fail("invalid CHAOS_APP: \(error)")
}
if let problem = configuration.problem { fail("invalid CHAOS_APP: \(problem)") }
for repair in configuration.repairs ?? [] {
  if let problem = Repairs.problem(with: repair) { fail("invalid CHAOS_APP: \(problem)") }
}

let stateDirectory = ChaosProbe.stateDirectory(
  default: FileManager.default.currentDirectoryPath + "/.chaos-target-state")
ReferenceApp(configuration: configuration, stateDirectory: stateDirectory).run()
exit(0)
