// The baseline: a hello that imports FoundationEssentials and uses `Date`, as a server that
// keeps Foundation out does.
#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

print("hello at \(Date().timeIntervalSince1970 > 0)")
