// swift-tools-version: 6.1
import Foundation
import PackageDescription

// Package traits. A package that depends on this one gets neither unless it asks:
// - Chaos: ChaosProbe honours the harness's CHAOS_* environment (a chaos build of your app).
//   Without it the probe is compiled inert: a production build ignores every CHAOS_* variable.
// - Harness: the chaos harness (ChaosKit, `chaos`) and the packages only it needs (Yams,
//   swift-argument-parser, hdrhistogram-swift), which a server then never resolves. Implies Chaos.
// Built as the root package (`swift run chaos`, `swift test` in this folder), both are on.
let isRootPackage: Bool = {
  if Context.environment["LAUNCHCHAOS_HARNESS"] == "1" { return true }
  guard let workingDirectory = Context.environment["PWD"] else { return false }
  func real(_ path: String) -> String { URL(fileURLWithPath: path).resolvingSymlinksInPath().path }
  return real(workingDirectory) == real(Context.packageDirectory)
}()
let harness: TargetDependencyCondition? = .when(traits: ["Harness"])

// What every protected program links (LaunchProtection, Failpoints and their C) is built for size
// in release: -Osize, line tables only for its debug information, and C symbols not exported.
// Tools version 6.2 lets a dependency carry these flags; Package@swift-6.1.swift is this manifest
// without them, for Swift 6.1 (CI/check-manifests). Figures: Docs/BenchmarkHistory.md.
let release = BuildSettingCondition.when(configuration: .release)
let leanSwift: [SwiftSetting] = []
let leanC: [CSetting] = []

let package = Package(
  name: "LaunchChaos",
  // Linux x86_64 is supported and tested. On aarch64 Linux the crash handler's C code runs under
  // qemu-user in CI (CI/aarch64-crash-check); the Swift code has no arm64 toolchain here. See README.
  platforms: [.macOS(.v15)],
  products: [
    .library(name: "LaunchProtection", targets: ["LaunchProtection"]),
    .library(name: "LaunchTasks", targets: ["LaunchTasks"]),
    .library(name: "Failpoints", targets: ["Failpoints"]),
    .library(name: "ChaosProbe", targets: ["ChaosProbe"]),
    // Thin adapters for servers; LaunchProtection itself depends on neither package.
    .library(name: "LaunchProtectionServiceLifecycle", targets: ["LaunchProtectionServiceLifecycle"]),
    .library(name: "LaunchProtectionLogging", targets: ["LaunchProtectionLogging"]),
    .library(name: "LaunchProtectionMetrics", targets: ["LaunchProtectionMetrics"]),
    // One import for a Hummingbird or ServiceLifecycle server: the organizer, the probe, the log.
    .library(name: "LaunchProtectionServer", targets: ["LaunchProtectionServer"]),
    .library(name: "ChaosKit", targets: ["ChaosKit"]),
    .executable(name: "chaos", targets: ["chaos"]),
    .executable(name: "chaos-target", targets: ["chaos-target"]),
  ],
  traits: [
    .trait(name: "Chaos", description: "ChaosProbe honours CHAOS_* (a chaos build; off: the probe is inert)"),
    .trait(
      name: "Harness", description: "ChaosKit and the chaos tool, with Yams, ArgumentParser and HdrHistogram",
      enabledTraits: ["Chaos"]),
    .default(enabledTraits: isRootPackage ? ["Harness"] : []),
  ],
  dependencies: [
    .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
    .package(url: "https://github.com/jpsim/Yams", from: "6.0.0"),
    .package(url: "https://github.com/HdrHistogram/hdrhistogram-swift", from: "0.2.0"),
    .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.0.0"),
    .package(url: "https://github.com/apple/swift-log", from: "1.5.0"),
    .package(url: "https://github.com/apple/swift-metrics", from: "2.5.0"),
  ],
  targets: [
    // Header-only on purpose: CCrashCapture loads libunwind.so.8 with dlopen(RTLD_LOCAL).
    // A pkgConfig/link entry would add -lunwind, and a linked libunwind interposes every
    // `_Unwind_*` and `backtrace` in the process (the LaunchProtection documentation, "Crash capture").
    .systemLibrary(
      name: "CLibunwind",
      providers: [.apt(["libunwind-dev"])]
    ),
    .target(
      name: "CCrashCapture",
      dependencies: ["CLibunwind"],
      cSettings: leanC,
      // Before glibc 2.34 (Ubuntu 20.04, Amazon Linux 2) dlopen and the pthread calls are in
      // libdl and libpthread, not libc (CI/glibc-check links against glibc 2.31).
      linkerSettings: [.linkedLibrary("dl"), .linkedLibrary("pthread")]
    ),
    .target(name: "CFailpointFaults", cSettings: leanC),
    .target(name: "Failpoints", dependencies: ["CFailpointFaults"], swiftSettings: leanSwift),
    .target(name: "LaunchProtection", dependencies: ["CCrashCapture", "Failpoints"], swiftSettings: leanSwift),
    .target(name: "LaunchTasks", dependencies: ["Failpoints"]),
    .target(
      name: "ChaosProbe", dependencies: ["LaunchProtection", "LaunchTasks", "Failpoints"],
      swiftSettings: [.define("LAUNCHCHAOS_PROBE", .when(traits: ["Chaos"]))]),
    // A ServiceLifecycle `Service` that turns graceful shutdown into a stop request and marks the
    // launch finished once the other services are up.
    .target(
      name: "LaunchProtectionServiceLifecycle",
      dependencies: ["LaunchProtection", .product(name: "ServiceLifecycle", package: "swift-service-lifecycle")]
    ),
    // A swift-log sink for launch protection events.
    .target(
      name: "LaunchProtectionLogging",
      dependencies: ["LaunchProtection", .product(name: "Logging", package: "swift-log")]
    ),
    // swift-metrics counters, gauges and a timer for launch protection (Prometheus names).
    .target(
      name: "LaunchProtectionMetrics",
      dependencies: ["LaunchProtection", .product(name: "Metrics", package: "swift-metrics")]
    ),
    // `ServerLaunch`: a server's launch protection, chaos probe, crash capture and swift-log events in
    // one `Service` (no swift-metrics: `LaunchProtectionMetrics` stays opt-in).
    .target(
      name: "LaunchProtectionServer",
      dependencies: [
        "LaunchProtection", "ChaosProbe", "Failpoints", "LaunchProtectionServiceLifecycle", "LaunchProtectionLogging",
        .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        .product(name: "Logging", package: "swift-log"),
      ]
    ),
    // Spawns targets with PR_SET_PDEATHSIG (C: the code between vfork and exec must be).
    .target(name: "CProcessSpawn"),
    .target(
      name: "ChaosKit",
      dependencies: [
        "LaunchProtection", "Failpoints", "CProcessSpawn",
        .product(name: "Yams", package: "Yams", condition: harness),
      ]
    ),
    // What only `chaos bench` needs, kept out of ChaosKit's public surface.
    .target(
      name: "ChaosBench",
      dependencies: [
        "ChaosKit", "Failpoints", .product(name: "Histogram", package: "hdrhistogram-swift", condition: harness),
      ]
    ),
    .executableTarget(
      name: "chaos",
      // chaos-target and the bench helper are dependencies so that `swift run chaos` builds them.
      dependencies: [
        "ChaosKit", "ChaosBench", "chaos-target", "chaos-bench-helper",
        .product(name: "ArgumentParser", package: "swift-argument-parser", condition: harness),
      ]
    ),
    .executableTarget(
      name: "chaos-target",
      dependencies: ["ChaosProbe", "LaunchProtection", "LaunchTasks"],
      // Similar task bodies must stay separate functions, or release backtraces name the wrong task.
      swiftSettings: [.unsafeFlags(["-Xfrontend", "-disable-llvm-merge-functions-pass"])]
    ),
    // Every public entry point from many tasks at once, many times (CI/concurrency-stress).
    .executableTarget(
      name: "concurrency-stress",
      dependencies: [
        "LaunchProtection", "LaunchProtectionServer", "ChaosProbe", .product(name: "Logging", package: "swift-log"),
      ],
      path: "Tests/ConcurrencyStress"
    ),
    // Benchmark comparison only: a hand-written glibc backtrace() handler.
    .target(name: "CComparisonHandlers"),
    .executableTarget(
      name: "chaos-bench-helper",
      dependencies: ["ChaosProbe", "LaunchProtection", "LaunchTasks", "Failpoints", "CComparisonHandlers"]
    ),
    // A target written in C that speaks the protocol with its own counter (no LaunchProtection).
    .executableTarget(name: "c-target", path: "Tests/Fixtures/c-target"),
    .target(name: "TestSupport", path: "Tests/TestSupport"),
    .testTarget(name: "FailpointsTests", dependencies: ["Failpoints", "TestSupport"]),
    .target(name: "RegisteredTaskFixtures", dependencies: ["LaunchTasks"], path: "Tests/RegisteredTaskFixtures"),
    .testTarget(
      name: "LaunchTasksTests", dependencies: ["LaunchTasks", "Failpoints", "RegisteredTaskFixtures", "TestSupport"]),
    .testTarget(name: "ChaosKitTests", dependencies: ["ChaosKit", "Failpoints", "TestSupport"]),
    .testTarget(name: "ChaosBenchTests", dependencies: ["ChaosBench", "TestSupport"]),
    // ChaosProbe and crash capture seen from outside, in real processes of the reference app;
    // ChaosKit reads what they write (events, crash records) and symbolizes the backtraces.
    .testTarget(name: "ChaosProbeTests", dependencies: ["ChaosKit", "TestSupport"]),
    .testTarget(name: "CrashCaptureTests", dependencies: ["ChaosKit", "TestSupport"]),
    .testTarget(
      name: "LaunchProtectionTests",
      dependencies: ["LaunchProtection", "Failpoints", "TestSupport"]
    ),
    .testTarget(
      name: "LaunchProtectionIntegrationTests",
      dependencies: [
        "LaunchProtectionServiceLifecycle", "LaunchProtectionLogging", "LaunchProtectionMetrics", "LaunchProtection",
        "LaunchProtectionServer",
        .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        .product(name: "Logging", package: "swift-log"),
        .product(name: "MetricsTestKit", package: "swift-metrics"),
      ]
    ),
  ],
  swiftLanguageModes: [.v6]
)

// The DocC plugin only builds the documentation (`CI/docs`). It is added when LAUNCHCHAOS_DOCS is
// set, so a package that depends on LaunchChaos never resolves or fetches it.
if Context.environment["LAUNCHCHAOS_DOCS"] != nil {
  package.dependencies.append(.package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"))
}
