// Context for `chaos bench --only whole-process`: the FoundationEssentials hello plus one async
// function it never calls. Any async code links Swift's concurrency runtime and, through its
// global executor, libdispatch, as every async server (Hummingbird, Vapor) does; LaunchProtection's
// async API does too. This program shows what that part of the growth costs by itself.
#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

@inline(never) func answer() async -> Int {
  await withCheckedContinuation { continuation in continuation.resume(returning: 42) }
}

// Referenced, never called (the clock is past 1970), so the program does what the hello does.
let seconds = Date().timeIntervalSince1970
if seconds < 0 {
  let function: () async -> Int = answer
  print(function)
}
print("hello at \(seconds > 0)")
