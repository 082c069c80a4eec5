// swift-tools-version: 6.1
import PackageDescription

// The README's "Integration in ten lines" for a server, as a program: Sources/quickstart/main.swift
// holds the README's snippet verbatim between markers (CI/check-readme-snippet compares them), and
// Scenarios/ runs it (CI/test: a crash loop is repaired, the relaunch serves, a SIGTERM is not counted).
// Tests/QuickStartTests builds the application in parallel Swift Testing tests with HummingbirdTesting,
// each on a state directory of its own (the LaunchProtectionServer article "Testing a server").
let package = Package(
  name: "ServerQuickStart",
  platforms: [.macOS(.v15)],
  // A chaos build is `swift build --traits Chaos`; a production build (no trait) ignores CHAOS_*.
  traits: [.trait(name: "Chaos", description: "the chaos probe honours CHAOS_* (for chaos run)")],
  dependencies: [
    // In your project: .package(url: "<LaunchChaos repository>", from: "…", traits: […the same…])
    .package(
      name: "LaunchChaos", path: "../..", traits: [.trait(name: "Chaos", condition: .when(traits: ["Chaos"]))]),
    .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.0.0"),
  ],
  targets: [
    .executableTarget(
      name: "quickstart",
      dependencies: [
        .product(name: "LaunchProtectionServer", package: "LaunchChaos"),
        .product(name: "Hummingbird", package: "hummingbird"),
      ]
    ),
    .testTarget(
      name: "QuickStartTests",
      dependencies: ["quickstart", .product(name: "HummingbirdTesting", package: "hummingbird")]
    ),
  ],
  swiftLanguageModes: [.v6]
)
