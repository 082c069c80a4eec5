#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// A name `readdir` returned, read in place up to its NUL. Copying `entry.pointee.d_name`
/// copies all 256 bytes of the field, and a short record at the end of the directory stream's
/// buffer ends before them: the copy read past the buffer (a SIGSEGV seen in a test process
/// with 1 300 descriptors open, while listing `/proc/self/fdinfo`).
package enum DirectoryEntry {
  /// The bytes of `entry`'s name, valid until the next `readdir` on its stream.
  package static func name(_ entry: UnsafeMutablePointer<dirent>) -> UnsafeRawBufferPointer {
    let start = UnsafeRawPointer(entry) + nameOffset
    return UnsafeRawBufferPointer(start: start, count: strlen(start.assumingMemoryBound(to: CChar.self)))
  }

  /// The name as a String.
  package static func string(_ entry: UnsafeMutablePointer<dirent>) -> String {
    String(decoding: name(entry), as: UTF8.self)
  }

  private static let nameOffset = MemoryLayout<dirent>.offset(of: \dirent.d_name)!
}
