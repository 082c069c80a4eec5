// swift-tools-version: 6.1
// libFuzzer targets for everything LaunchChaos reads from outside: the state file, scenario YAML,
// events NDJSON, failpoint specs and crash records. A separate package so that users of the root
// package never build or link them. Build and run them with CI/fuzz (see README.md here).
import PackageDescription

let package = Package(
  name: "LaunchChaosFuzz",
  platforms: [.macOS(.v15)],
  dependencies: [
    .package(name: "LaunchChaos", path: "..", traits: ["Harness"])
  ],
  targets: [
    // Declares libFuzzer's LLVMFuzzerRunDriver for the targets' `main`.
    .target(name: "CFuzzDriver"),
    .executableTarget(
      name: "fuzz-state-file",
      dependencies: [
        "CFuzzDriver", .product(name: "LaunchProtection", package: "LaunchChaos"),
        .product(name: "Failpoints", package: "LaunchChaos"),
      ]
    ),
    .executableTarget(
      name: "fuzz-scenario",
      dependencies: ["CFuzzDriver", .product(name: "ChaosKit", package: "LaunchChaos")]
    ),
    .executableTarget(
      name: "fuzz-events",
      dependencies: ["CFuzzDriver", .product(name: "ChaosKit", package: "LaunchChaos")]
    ),
    .executableTarget(
      name: "fuzz-failpoint-spec",
      dependencies: ["CFuzzDriver", .product(name: "Failpoints", package: "LaunchChaos")]
    ),
    .executableTarget(
      name: "fuzz-crash-record",
      dependencies: ["CFuzzDriver", .product(name: "ChaosKit", package: "LaunchChaos")]
    ),
  ],
  swiftLanguageModes: [.v6]
)
