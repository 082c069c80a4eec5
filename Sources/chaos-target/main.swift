import Failpoints
import Foundation
import LaunchProtection

// The reference instrumented app: a Linux program whose launch is protected by
// LaunchProtection and whose every transition is reported as a protocol event.

let environment = ProcessInfo.processInfo.environment

func fail(_ message: String) -> Never {
  FileHandle.standardError.write(Data("chaos-target: \(message)\n".utf8))
  exit(2)
}

let configuration: AppConfiguration
do {
  configuration = try AppConfiguration.load(from: environment["CHAOS_APP"])
} catch {
  fail("invalid CHAOS_APP: \(error)")
}

for repair in configuration.repairs ?? [] {
  if let problem = Repairs.problem(with: repair) { fail("invalid CHAOS_APP: \(problem)") }
}

if CommandLine.arguments.dropFirst().first == "--bench-scheduler" {
  SchedulerBenchmark.run(arguments: Array(CommandLine.arguments.dropFirst(2)))
  exit(0)
}
if CommandLine.arguments.dropFirst().first == "--bench-warm-handler" {
  WarmHandlerBenchmark.run()
  exit(0)
}
if CommandLine.arguments.dropFirst().first == "--bench-install" {
  InstallCostBenchmark.run(arguments: Array(CommandLine.arguments.dropFirst(2)))
  exit(0)
}
if CommandLine.arguments.dropFirst().first == "--bench-failpoints" {
  FailpointCostBenchmark.run()
  exit(0)
}

let failpoints = FailpointRegistry.shared
failpoints.declare(ReferenceApp.failpointNames(configuration))
if let seed = environment["CHAOS_SEED"] {
  guard let value = UInt64(seed) else { fail("invalid CHAOS_SEED '\(seed)': expected an unsigned integer") }
  failpoints.seed(value)
}
do {
  try failpoints.configure(environment["CHAOS_FAILPOINTS"] ?? "")
} catch {
  fail("CHAOS_FAILPOINTS: \(error)")
}

guard let stateDirectory = environment["CHAOS_STATE_DIR"], !stateDirectory.isEmpty else {
  fail("CHAOS_STATE_DIR is not set: it names the directory of the protection state")
}

let app = ReferenceApp(
  configuration: configuration, stateDirectory: stateDirectory,
  events: EventLog(path: environment["CHAOS_EVENTS"]), failpoints: failpoints)
app.run()
exit(0)
