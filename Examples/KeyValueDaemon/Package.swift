// swift-tools-version: 6.1
import PackageDescription

// A small key-value daemon protected by LaunchProtection and made a chaos target with
// ChaosProbe; its own scenarios run from its own tests through ChaosKit.
let package = Package(
  name: "KeyValueDaemon",
  dependencies: [
    // In your project: .package(url: "<LaunchChaos repository>", from: "…", traits: ["Harness"]);
    // the trait Harness brings ChaosKit for the tests and turns the probe on (see Package.swift)
    .package(name: "LaunchChaos", path: "../..", traits: ["Harness"])
  ],
  targets: [
    .executableTarget(
      name: "kvd",
      dependencies: [
        .product(name: "LaunchProtection", package: "LaunchChaos"),
        .product(name: "LaunchTasks", package: "LaunchChaos"),
        .product(name: "ChaosProbe", package: "LaunchChaos"),
        .product(name: "Failpoints", package: "LaunchChaos"),
      ]
    ),
    .testTarget(
      name: "KeyValueDaemonTests",
      // kvd is a dependency so that `swift test` builds the daemon the scenarios launch.
      dependencies: ["kvd", .product(name: "ChaosKit", package: "LaunchChaos")]
    ),
  ],
  swiftLanguageModes: [.v6]
)
