//! Symbolic names for open flags and modes, as they appear in events (`O_WRONLY|O_CREAT`).

const OPEN_FLAGS: &[(i32, &str)] = &[
    (libc::O_APPEND, "O_APPEND"),
    (libc::O_ASYNC, "O_ASYNC"),
    (libc::O_CLOEXEC, "O_CLOEXEC"),
    (libc::O_CREAT, "O_CREAT"),
    (libc::O_DIRECT, "O_DIRECT"),
    (libc::O_DIRECTORY, "O_DIRECTORY"),
    (libc::O_DSYNC, "O_DSYNC"),
    (libc::O_EXCL, "O_EXCL"),
    (libc::O_LARGEFILE, "O_LARGEFILE"),
    (libc::O_NOATIME, "O_NOATIME"),
    (libc::O_NOCTTY, "O_NOCTTY"),
    (libc::O_NOFOLLOW, "O_NOFOLLOW"),
    (libc::O_NONBLOCK, "O_NONBLOCK"),
    (libc::O_PATH, "O_PATH"),
    (libc::O_TMPFILE & !libc::O_DIRECTORY, "O_TMPFILE"),
    (libc::O_TRUNC, "O_TRUNC"),
];

/// Renders open flags the way strace does: access mode first, then the other flags.
pub fn open_flags(flags: u64) -> String {
    let flags = flags as i32;
    let mut out = String::from(match flags & libc::O_ACCMODE {
        libc::O_RDONLY => "O_RDONLY",
        libc::O_WRONLY => "O_WRONLY",
        libc::O_RDWR => "O_RDWR",
        _ => "O_ACCMODE",
    });
    let mut rest = flags & !libc::O_ACCMODE;
    for &(bit, name) in OPEN_FLAGS {
        // O_SYNC contains O_DSYNC's bit; O_TMPFILE contains O_DIRECTORY's: test whole masks.
        if bit != 0 && rest & bit == bit {
            out.push('|');
            out.push_str(name);
            rest &= !bit;
        }
    }
    if rest != 0 {
        out.push_str(&format!("|{rest:#x}"));
    }
    out
}

/// Whether flags ask for write access or modification.
pub fn is_write(flags: u64) -> bool {
    let f = flags as i32;
    f & libc::O_ACCMODE != libc::O_RDONLY || f & (libc::O_TRUNC | libc::O_CREAT) != 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_like_strace() {
        assert_eq!(open_flags(libc::O_RDONLY as u64), "O_RDONLY");
        assert_eq!(
            open_flags((libc::O_WRONLY | libc::O_CREAT | libc::O_TRUNC | libc::O_CLOEXEC) as u64),
            "O_WRONLY|O_CLOEXEC|O_CREAT|O_TRUNC"
        );
        assert_eq!(
            open_flags((libc::O_RDONLY | libc::O_DIRECTORY | libc::O_NONBLOCK) as u64),
            "O_RDONLY|O_DIRECTORY|O_NONBLOCK"
        );
        assert!(is_write(libc::O_RDWR as u64));
        assert!(!is_write((libc::O_RDONLY | libc::O_CLOEXEC) as u64));
    }
}
