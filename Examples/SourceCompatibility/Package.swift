// swift-tools-version: 6.1
import PackageDescription

// A client of LaunchChaos that makes every call its documentation shows: the README and the
// DocC articles of today, and the README as it was before the async API and in between
// (Sources/DocumentedCalls/EarlierReadmes.swift). CI builds it (CI/test); a change to
// LaunchChaos that breaks a documented call breaks this build.
let package = Package(
  name: "SourceCompatibility",
  dependencies: [
    .package(name: "LaunchChaos", path: "../..", traits: ["Harness"]),
    .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.0.0"),
    .package(url: "https://github.com/apple/swift-log", from: "1.5.0"),
  ],
  targets: [
    .target(
      name: "DocumentedCalls",
      dependencies: [
        .product(name: "LaunchProtection", package: "LaunchChaos"),
        .product(name: "LaunchTasks", package: "LaunchChaos"),
        .product(name: "ChaosProbe", package: "LaunchChaos"),
        .product(name: "Failpoints", package: "LaunchChaos"),
        .product(name: "LaunchProtectionServiceLifecycle", package: "LaunchChaos"),
        .product(name: "LaunchProtectionLogging", package: "LaunchChaos"),
        .product(name: "LaunchProtectionServer", package: "LaunchChaos"),
        .product(name: "LaunchProtectionMetrics", package: "LaunchChaos"),
        .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        .product(name: "Logging", package: "swift-log"),
      ]
    ),
    .testTarget(
      name: "DocumentedCallsTests",
      dependencies: ["DocumentedCalls", .product(name: "ChaosKit", package: "LaunchChaos")]
    ),
  ],
  swiftLanguageModes: [.v6]
)
