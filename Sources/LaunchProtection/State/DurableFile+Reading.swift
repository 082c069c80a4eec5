#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// Reading: whole files in as few `read` calls as their kind allows.
extension DurableFile {
  /// The state file's contents: one read of a buffer a byte larger than the usual file (two
  /// 4 KiB slots), which returns short at its end, so no `fstat` is spent on the size; a
  /// larger file (grown slots, or not a state file) is read on to its end.
  static func readState(_ fd: Int32) throws(Failure) -> [UInt8] {
    try readAtOnce(fd, capacity: 2 * 4096 + 1)
  }

  /// `fd`'s contents from one `read` of `capacity` bytes when it returns short (the end was
  /// reached); a read that fills the buffer is followed by `readAll` to the end. With `offset`,
  /// read from there with `pread`, whatever the descriptor's own offset.
  static func readAtOnce(_ fd: Int32, capacity: Int, from offset: Int? = nil) throws(Failure) -> [UInt8] {
    var code: Int32 = 0
    let first = [UInt8](unsafeUninitializedCapacity: capacity) { buffer, count in
      count = 0
      var read = -1
      repeat {
        read = readDescriptor(fd, buffer.baseAddress!, buffer.count, at: offset)
      } while read < 0 && errno == EINTR
      if read < 0 { code = errno } else { count = read }
    }
    if code != 0 { throw Failure(operation: "read", errno: code) }
    guard first.count == capacity else { return first }
    return try first + readAll(fd, from: offset.map { $0 + first.count })
  }

  /// The contents of an open file. A regular file is read in reads of the size `fstat` gave
  /// (one for the state file: its size changes only by a rename, which makes a new inode, so
  /// no extra read is spent to find the end); anything else until a read returns 0. With
  /// `offset`, from there with `pread`.
  static func readAll(_ fd: Int32, from offset: Int? = nil) throws(Failure) -> [UInt8] {
    var info = stat()
    let size: Int? =
      fstat(fd, &info) == 0 && info.st_mode & S_IFMT == S_IFREG && info.st_size > 0 ? Int(info.st_size) : nil
    var bytes: [UInt8] = []
    var capacity = size ?? 4096
    while true {
      var code: Int32 = 0
      var atEnd = false
      // Uninitialized: nothing is zeroed only to be overwritten by the read.
      let position = offset.map { $0 + bytes.count }
      let chunk = [UInt8](unsafeUninitializedCapacity: capacity) { buffer, count in
        count = 0
        while count < buffer.count {
          let read = readDescriptor(
            fd, buffer.baseAddress! + count, buffer.count - count, at: position.map { $0 + count })
          if read < 0 {
            if errno == EINTR { continue }
            code = errno
            return
          }
          if read == 0 {
            atEnd = true
            return
          }
          count += read
        }
      }
      if code != 0 { throw Failure(operation: "read", errno: code) }
      if bytes.isEmpty { bytes = chunk } else { bytes += chunk }
      if atEnd || bytes.count == size { return bytes }
      capacity = max(4096, bytes.count)
    }
  }

  /// A small procfs file (`/proc/<pid>/stat`, `boot_id`) in one `read`: procfs generates such a
  /// file whole on the first read when the buffer holds it, so no second read looks for the end
  /// (a file that fills the buffer is read on to its end). Nil when it cannot be read.
  static func readSmallProcFile(_ path: String) -> [UInt8]? {
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    return try? readAtOnce(fd, capacity: 4096)
  }
}

// The C library's `read` by a name of its own: the locals named `read` hide the global
// function, and a `Glibc.` prefix would not build against musl.
private func readDescriptor(_ fd: Int32, _ buffer: UnsafeMutableRawPointer, _ count: Int, at offset: Int?) -> Int {
  guard let offset else { return read(fd, buffer, count) }
  return pread(fd, buffer, count, off_t(offset))
}
