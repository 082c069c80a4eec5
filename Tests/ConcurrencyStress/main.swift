// Every public entry point of the library, called by many tasks at once, many times, in one
// process: what an app's parallel tests do (Swift Testing runs tests in parallel, and
// Hummingbird's and Vapor's templates build the application, so a `ServerLaunch`, in each).
//
//   concurrency-stress [ROUNDS] [WIDTH]     (defaults 200 and 8)
//   concurrency-stress --servers N          (only N `ServerLaunch` made at once, then exit: the
//                                            first install's race, which a process meets once)
//   concurrency-stress --crash              (after the rounds: a real SIGSEGV, which the
//                                            shared handler must record once and die by)
//
// Exit 0 when every round's launches ended as the contract says; 1 with a line naming the
// round, the task and what was expected otherwise. A crash of the process is the failure the
// stress exists to catch. `CI/concurrency-stress` runs it in debug, release and TSan builds.
import ChaosProbe
import LaunchProtection
import LaunchProtectionServer
import Logging

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

let arguments = CommandLine.arguments.dropFirst().filter { !$0.hasPrefix("--") }
let rounds = arguments.first.flatMap { Int($0) } ?? 200
let width = arguments.dropFirst().first.flatMap { Int($0) } ?? 8
let crashAtEnd = CommandLine.arguments.contains("--crash")
let serversOnly = CommandLine.arguments.contains("--servers")

// The state directories go under $STRESS_ROOT (the CI script makes and removes it) or a new
// temporary directory, which is left for a look afterwards.
let root: String = {
  if let given = getenv("STRESS_ROOT") { return String(cString: given) }
  var template = Array("/tmp/concurrency-stress.XXXXXX".utf8CString)
  guard let made = mkdtemp(&template) else { fatalError("mkdtemp: \(errno)") }
  return String(cString: made)
}()

/// A logger that prints nothing: the stress is about the library, not the log's volume.
let quiet: Logger = {
  var logger = Logger(label: "stress") { _ in SwiftLogNoOpLogHandler() }
  logger.logLevel = .critical
  return logger
}()

let failures = StressFailures()
let started = ContinuousClock.now
if serversOnly {
  let count = arguments.first.flatMap { Int($0) } ?? 2
  await withTaskGroup(of: Void.self) { group in
    for task in 0..<count {
      group.addTask { await StressTask(round: 0, task: task, failures: failures).runServer("\(root)/server-\(task)") }
    }
  }
  for problem in failures.all { print("concurrency-stress: \(problem)") }
  exit(failures.all.isEmpty ? 0 : 1)
}
for round in 0..<rounds {
  let directory = "\(root)/round-\(round)"
  await withTaskGroup(of: Void.self) { group in
    for task in 0..<width {
      group.addTask {
        await StressTask(round: round, task: task, failures: failures).run(directory: directory)
      }
    }
  }
  await StressTask.checkRound(round: round, directory: directory, width: width, failures: failures)
}
let elapsed = ContinuousClock.now - started
let problems = failures.all
for problem in problems.prefix(20) { print("concurrency-stress: \(problem)") }
print(
  "concurrency-stress: \(rounds) rounds x \(width) tasks in \(elapsed), "
    + "crash capture installed: \(CrashCapture.isInstalled), \(problems.count) failures")
if !problems.isEmpty { exit(1) }
if crashAtEnd { StressTask.crashForReal() }
exit(0)
