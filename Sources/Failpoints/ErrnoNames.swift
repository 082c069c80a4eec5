#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// Symbolic errno names accepted by `return(...)`, so specs read `return(ENOSPC)`.
enum ErrnoNames {
  static let table: [(String, Int32)] = [
    ("EPERM", EPERM), ("ENOENT", ENOENT), ("EINTR", EINTR), ("EIO", EIO), ("EBADF", EBADF),
    ("EAGAIN", EAGAIN), ("ENOMEM", ENOMEM), ("EACCES", EACCES), ("EBUSY", EBUSY),
    ("EEXIST", EEXIST), ("EXDEV", EXDEV), ("ENOTDIR", ENOTDIR), ("EISDIR", EISDIR),
    ("EINVAL", EINVAL), ("ENFILE", ENFILE), ("EMFILE", EMFILE), ("EFBIG", EFBIG),
    ("ENOSPC", ENOSPC), ("EROFS", EROFS), ("EDQUOT", EDQUOT), ("ETIMEDOUT", ETIMEDOUT),
  ]

  static func value(of name: String) -> Int32? {
    if let number: Int32 = IntegerText.value(name), number > 0 { return number }
    return table.first { $0.0 == name.uppercased() }?.1
  }

  static func name(of value: Int32) -> String {
    table.first { $0.1 == value }?.0 ?? String(value)
  }
}
