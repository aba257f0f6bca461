//! Errno numbers and names (x86_64/generic Linux values), for the `errno` field of events.

const NAMES: &[(i32, &str)] = &[
    (1, "EPERM"),
    (2, "ENOENT"),
    (3, "ESRCH"),
    (4, "EINTR"),
    (5, "EIO"),
    (6, "ENXIO"),
    (7, "E2BIG"),
    (8, "ENOEXEC"),
    (9, "EBADF"),
    (10, "ECHILD"),
    (11, "EAGAIN"),
    (12, "ENOMEM"),
    (13, "EACCES"),
    (14, "EFAULT"),
    (16, "EBUSY"),
    (17, "EEXIST"),
    (18, "EXDEV"),
    (19, "ENODEV"),
    (20, "ENOTDIR"),
    (21, "EISDIR"),
    (22, "EINVAL"),
    (23, "ENFILE"),
    (24, "EMFILE"),
    (25, "ENOTTY"),
    (26, "ETXTBSY"),
    (27, "EFBIG"),
    (28, "ENOSPC"),
    (29, "ESPIPE"),
    (30, "EROFS"),
    (31, "EMLINK"),
    (32, "EPIPE"),
    (36, "ENAMETOOLONG"),
    (38, "ENOSYS"),
    (39, "ENOTEMPTY"),
    (40, "ELOOP"),
    (61, "ENODATA"),
    (75, "EOVERFLOW"),
    (88, "ENOTSOCK"),
    (89, "EDESTADDRREQ"),
    (91, "EPROTOTYPE"),
    (93, "EPROTONOSUPPORT"),
    (95, "EOPNOTSUPP"),
    (97, "EAFNOSUPPORT"),
    (98, "EADDRINUSE"),
    (99, "EADDRNOTAVAIL"),
    (100, "ENETDOWN"),
    (101, "ENETUNREACH"),
    (103, "ECONNABORTED"),
    (104, "ECONNRESET"),
    (106, "EISCONN"),
    (107, "ENOTCONN"),
    (110, "ETIMEDOUT"),
    (111, "ECONNREFUSED"),
    (113, "EHOSTUNREACH"),
    (114, "EALREADY"),
    (115, "EINPROGRESS"),
    (116, "ESTALE"),
    (122, "EDQUOT"),
    (125, "ECANCELED"),
];

/// The symbolic name of an errno (`2` → `ENOENT`); unknown numbers become `E<n>`.
pub fn errno_name(errno: i32) -> String {
    NAMES
        .iter()
        .find(|(n, _)| *n == errno)
        .map(|(_, name)| (*name).to_string())
        .unwrap_or_else(|| format!("E{errno}"))
}

/// The errno for a symbolic name (`ENOENT` → `2`, `E77` → `77`).
pub fn errno_from_name(name: &str) -> Option<i32> {
    NAMES
        .iter()
        .find(|(_, n)| *n == name)
        .map(|(num, _)| *num)
        .or_else(|| name.strip_prefix('E')?.parse().ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for (n, name) in NAMES {
            assert_eq!(errno_name(*n), *name);
            assert_eq!(errno_from_name(name), Some(*n));
        }
        assert_eq!(errno_name(4095), "E4095");
        assert_eq!(errno_from_name("E4095"), Some(4095));
        assert_eq!(errno_from_name("bogus"), None);
    }
}
