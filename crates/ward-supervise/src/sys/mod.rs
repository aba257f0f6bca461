//! Kernel-facing code. Every `unsafe` block of the crate lives under this module.

/// Restores the default `SIGPIPE` disposition (Rust ignores it), so a closed stdout ends ward
/// quietly the way it ends other Unix tools, and children inherit the default.
pub fn restore_default_sigpipe() {
    // SAFETY: installing SIG_DFL for SIGPIPE has no memory-safety preconditions; it is done
    // once at start-up before any thread exists.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}
