import ChaosProbe

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

// The reference instrumented app: a Linux program whose launch is protected by
// LaunchProtection, organised with LaunchTasks and made a chaos target by ChaosProbe —
// exactly as a user's app would be. `CHAOS_APP` (JSON) shapes it for each scenario.

func fail(_ message: String) -> Never {
  writeStandardError("chaos-target: \(message)\n")
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

// Under systemd, `StateDirectory=` gives the service its directory in STATE_DIRECTORY (the
// first of a colon-separated list): the reference app takes it, as systemd intends.
let systemdStateDirectory = ProcessInfo.processInfo.environment["STATE_DIRECTORY"]?.split(separator: ":").first
var stateDirectory = ChaosProbe.stateDirectory(
  default: systemdStateDirectory.map(String.init) ?? FileManager.default.currentDirectoryPath + "/.chaos-target-state")
if let relative = configuration.relativeStateDirectory {
  // The scenario's state directory becomes the working directory the relative path starts from.
  _ = mkdir(stateDirectory, 0o755)
  guard chdir(stateDirectory) == 0 else { fail("cannot enter \(stateDirectory) for relative_state_directory") }
  stateDirectory = relative
}
if let subdirectory = configuration.stateSubdirectory { stateDirectory += "/" + subdirectory }
if configuration.stateDirectoryReadOnly == true, !ReadOnlyMount.apply(stateDirectory: stateDirectory) { exit(7) }
let app = ReferenceApp(configuration: configuration, stateDirectory: stateDirectory)
app.run()
// The organizer must outlive the exit: its exit tracker holds it weakly, and an exit(0) during
// the launch (a degraded launch's) is seen as clean only by a live organizer.
withExtendedLifetime(app) { exit(0) }
