// swift-tools-version: 6.1
import PackageDescription

// Tiny programs, each linking one LaunchChaos product and nothing else, and a hello that
// imports FoundationEssentials. CI/foundation-check builds them and fails when one needs a
// Foundation or ICU library (`objdump -p`); `chaos bench --only whole-process` compares the
// protected program (`protected-launch`) with the hello in size and start-to-exit time, with three
// context programs beside them (`hello-concurrency`, `protected-launch-without-stop-watcher`,
// `launch-floor`).
let package = Package(
  name: "Footprint",
  dependencies: [
    .package(name: "LaunchChaos", path: "../..")
  ],
  targets: [
    .executableTarget(name: "hello-essentials"),
    .executableTarget(
      name: "protected-launch", dependencies: [.product(name: "LaunchProtection", package: "LaunchChaos")]),
    // Context rows of the bench: the hello with Swift concurrency linked, and the protected
    // program without the SIGTERM watcher.
    .executableTarget(name: "hello-concurrency"),
    .executableTarget(
      name: "protected-launch-without-stop-watcher",
      dependencies: [.product(name: "LaunchProtection", package: "LaunchChaos")]),
    // A context row too: the protected launch's system calls and watcher thread, made from C.
    // glibc before 2.34 keeps pthread_create in libpthread (CI/glibc-check builds against 2.31).
    .target(name: "CLaunchFloor", linkerSettings: [.linkedLibrary("pthread")]),
    .executableTarget(name: "launch-floor", dependencies: ["CLaunchFloor"]),
    .executableTarget(name: "uses-launch-tasks", dependencies: [.product(name: "LaunchTasks", package: "LaunchChaos")]),
    .executableTarget(name: "uses-failpoints", dependencies: [.product(name: "Failpoints", package: "LaunchChaos")]),
    .executableTarget(name: "uses-chaos-probe", dependencies: [.product(name: "ChaosProbe", package: "LaunchChaos")]),
    .executableTarget(
      name: "uses-logging-adapter",
      dependencies: [.product(name: "LaunchProtectionLogging", package: "LaunchChaos")]),
    .executableTarget(
      name: "uses-service-lifecycle-adapter",
      dependencies: [.product(name: "LaunchProtectionServiceLifecycle", package: "LaunchChaos")]),
    .executableTarget(
      name: "uses-metrics-adapter",
      dependencies: [.product(name: "LaunchProtectionMetrics", package: "LaunchChaos")]),
    .executableTarget(
      name: "uses-server-product",
      dependencies: [.product(name: "LaunchProtectionServer", package: "LaunchChaos")]),
  ],
  swiftLanguageModes: [.v6]
)
