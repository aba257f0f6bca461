//! Which system calls reach ward, and why: the notify filter's rules as data, one reason each.

use crate::bpf::{Rule, RuleAction};

/// Namespace-creating clone/unshare flags (`CLONE_NEWNS|NEWCGROUP|NEWUTS|NEWIPC|NEWUSER|NEWPID|NEWNET|NEWTIME`).
pub const NAMESPACE_FLAGS: u32 = 0x0002_0000 | 0x0200_0000 | 0x0400_0000 | 0x0800_0000
    | 0x1000_0000 | 0x2000_0000 | 0x4000_0000 | 0x0000_0080;

/// `SECCOMP_FILTER_FLAG_NEW_LISTENER`.
const NEW_LISTENER: u32 = 1 << 3;

/// How ward handles a trapped call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Class {
    /// Opened by ward and the descriptor injected.
    Open,
    /// A directory listing.
    Dents,
    /// Checked, then continued; verified at the next stop.
    Exec,
    /// Connect, bind: carried out by ward on a duplicate of the caller's socket.
    Socket,
    /// `socket()`: recorded, continued (arguments are registers).
    SocketCreate,
    /// Datagram sends with a destination.
    Send,
    /// Path mutations carried out by ward.
    FsMutation,
    /// Signals: continued when the target is in the tree.
    Signal,
    /// Calls that would let the tree get around ward: refused in enforce mode.
    Escape,
}

/// One trapped syscall.
#[derive(Debug, Clone, Copy)]
pub struct Trap {
    /// Name.
    pub name: &'static str,
    /// x86_64 number.
    pub nr: u32,
    /// Filter action.
    pub action: RuleAction,
    /// Handling.
    pub class: Class,
    /// Why it is trapped.
    pub reason: &'static str,
}

macro_rules! trap {
    ($name:ident, $action:expr, $class:expr, $reason:expr) => {
        Trap {
            name: stringify!($name),
            nr: paste_nr!($name),
            action: $action,
            class: $class,
            reason: $reason,
        }
    };
}

macro_rules! paste_nr {
    (open) => { libc::SYS_open as u32 };
    (creat) => { libc::SYS_creat as u32 };
    (openat) => { libc::SYS_openat as u32 };
    (openat2) => { libc::SYS_openat2 as u32 };
    (getdents64) => { libc::SYS_getdents64 as u32 };
    (getdents) => { libc::SYS_getdents as u32 };
    (execve) => { libc::SYS_execve as u32 };
    (execveat) => { libc::SYS_execveat as u32 };
    (connect) => { libc::SYS_connect as u32 };
    (bind) => { libc::SYS_bind as u32 };
    (sendto) => { libc::SYS_sendto as u32 };
    (sendmsg) => { libc::SYS_sendmsg as u32 };
    (sendmmsg) => { libc::SYS_sendmmsg as u32 };
    (socket) => { libc::SYS_socket as u32 };
    (unlink) => { libc::SYS_unlink as u32 };
    (unlinkat) => { libc::SYS_unlinkat as u32 };
    (rmdir) => { libc::SYS_rmdir as u32 };
    (rename) => { libc::SYS_rename as u32 };
    (renameat) => { libc::SYS_renameat as u32 };
    (renameat2) => { libc::SYS_renameat2 as u32 };
    (link) => { libc::SYS_link as u32 };
    (linkat) => { libc::SYS_linkat as u32 };
    (symlink) => { libc::SYS_symlink as u32 };
    (symlinkat) => { libc::SYS_symlinkat as u32 };
    (mkdir) => { libc::SYS_mkdir as u32 };
    (mkdirat) => { libc::SYS_mkdirat as u32 };
    (mknod) => { libc::SYS_mknod as u32 };
    (mknodat) => { libc::SYS_mknodat as u32 };
    (chmod) => { libc::SYS_chmod as u32 };
    (fchmodat) => { libc::SYS_fchmodat as u32 };
    (fchmodat2) => { 452u32 };
    (truncate) => { libc::SYS_truncate as u32 };
    (kill) => { libc::SYS_kill as u32 };
    (tkill) => { libc::SYS_tkill as u32 };
    (tgkill) => { libc::SYS_tgkill as u32 };
    (pidfd_send_signal) => { libc::SYS_pidfd_send_signal as u32 };
    (rt_sigqueueinfo) => { libc::SYS_rt_sigqueueinfo as u32 };
    (rt_tgsigqueueinfo) => { libc::SYS_rt_tgsigqueueinfo as u32 };
    (io_uring_setup) => { libc::SYS_io_uring_setup as u32 };
    (io_uring_enter) => { libc::SYS_io_uring_enter as u32 };
    (io_uring_register) => { libc::SYS_io_uring_register as u32 };
    (open_by_handle_at) => { libc::SYS_open_by_handle_at as u32 };
    (name_to_handle_at) => { libc::SYS_name_to_handle_at as u32 };
    (ptrace) => { libc::SYS_ptrace as u32 };
    (process_vm_readv) => { libc::SYS_process_vm_readv as u32 };
    (process_vm_writev) => { libc::SYS_process_vm_writev as u32 };
    (pidfd_getfd) => { libc::SYS_pidfd_getfd as u32 };
    (seccomp) => { libc::SYS_seccomp as u32 };
    (chroot) => { libc::SYS_chroot as u32 };
    (pivot_root) => { libc::SYS_pivot_root as u32 };
    (mount) => { libc::SYS_mount as u32 };
    (umount2) => { libc::SYS_umount2 as u32 };
    (move_mount) => { libc::SYS_move_mount as u32 };
    (open_tree) => { libc::SYS_open_tree as u32 };
    (fsopen) => { libc::SYS_fsopen as u32 };
    (fsmount) => { libc::SYS_fsmount as u32 };
    (fspick) => { libc::SYS_fspick as u32 };
    (mount_setattr) => { libc::SYS_mount_setattr as u32 };
    (unshare) => { libc::SYS_unshare as u32 };
    (setns) => { libc::SYS_setns as u32 };
    (clone) => { libc::SYS_clone as u32 };
    (clone3) => { libc::SYS_clone3 as u32 };
    (userfaultfd) => { libc::SYS_userfaultfd as u32 };
    (prlimit64) => { libc::SYS_prlimit64 as u32 };
    (fcntl) => { libc::SYS_fcntl as u32 };
    (ioctl) => { libc::SYS_ioctl as u32 };
    (fanotify_init) => { libc::SYS_fanotify_init as u32 };
}

use Class::*;
use RuleAction::*;

/// The trapped calls.
pub const TRAPS: &[Trap] = &[
    trap!(open, Notify, Open, "file access: ward opens the file itself and injects the descriptor"),
    trap!(creat, Notify, Open, "file creation"),
    trap!(openat, Notify, Open, "file access"),
    trap!(openat2, Notify, Open, "file access with resolve flags"),
    trap!(getdents64, Notify, Dents, "directory listing"),
    trap!(getdents, Notify, Dents, "directory listing (legacy)"),
    trap!(execve, Notify, Exec, "program execution"),
    trap!(execveat, Notify, Exec, "program execution from a descriptor (memfd)"),
    trap!(connect, Notify, Socket, "outgoing connection: ward connects the caller's socket itself"),
    trap!(bind, Notify, Socket, "listening address"),
    trap!(sendto, NotifyIfArgNonZero(4), Send, "datagram with an explicit destination (DNS)"),
    trap!(sendmsg, Notify, Send, "message send: the destination is in memory"),
    trap!(sendmmsg, Notify, Send, "batched message send: the destinations are in memory"),
    trap!(socket, Notify, SocketCreate, "socket family and type (raw and packet sockets)"),
    trap!(unlink, Notify, FsMutation, "file deletion"),
    trap!(unlinkat, Notify, FsMutation, "file deletion"),
    trap!(rmdir, Notify, FsMutation, "directory deletion"),
    trap!(rename, Notify, FsMutation, "rename"),
    trap!(renameat, Notify, FsMutation, "rename"),
    trap!(renameat2, Notify, FsMutation, "rename"),
    trap!(link, Notify, FsMutation, "hard link"),
    trap!(linkat, Notify, FsMutation, "hard link"),
    trap!(symlink, Notify, FsMutation, "symbolic link"),
    trap!(symlinkat, Notify, FsMutation, "symbolic link"),
    trap!(mkdir, Notify, FsMutation, "directory creation"),
    trap!(mkdirat, Notify, FsMutation, "directory creation"),
    trap!(mknod, Notify, FsMutation, "special file creation"),
    trap!(mknodat, Notify, FsMutation, "special file creation"),
    trap!(chmod, Notify, FsMutation, "permission change"),
    trap!(fchmodat, Notify, FsMutation, "permission change"),
    trap!(fchmodat2, Notify, FsMutation, "permission change"),
    trap!(truncate, Notify, FsMutation, "truncation by path"),
    trap!(kill, Notify, Signal, "signals may only reach processes of the tree"),
    trap!(tkill, Notify, Signal, "signals may only reach processes of the tree"),
    trap!(tgkill, Notify, Signal, "signals may only reach processes of the tree"),
    trap!(pidfd_send_signal, Notify, Signal, "signals may only reach processes of the tree"),
    trap!(rt_sigqueueinfo, Notify, Signal, "signals may only reach processes of the tree"),
    trap!(rt_tgsigqueueinfo, Notify, Signal, "signals may only reach processes of the tree"),
    trap!(prlimit64, NotifyIfArgNonZero(0), Signal, "another process's resource limits (RLIMIT_FSIZE=0 would end ward at its next write)"),
    trap!(fcntl, NotifyIfArgIn(1, &[8 /* F_SETOWN */, 15 /* F_SETOWN_EX */]), Signal, "the owner of a descriptor receives its SIGIO (or any signal set with F_SETSIG)"),
    trap!(ioctl, NotifyIfArgIn(1, &[0x8901 /* FIOSETOWN */, 0x8902 /* SIOCSPGRP */]), Signal, "the owner of a socket receives its SIGIO/SIGURG"),
    trap!(fanotify_init, Notify, Escape, "fanotify hands out descriptors of files other processes (ward) open"),
    trap!(io_uring_setup, Notify, Escape, "io_uring performs file and network operations in kernel context, out of ward's sight"),
    trap!(io_uring_enter, Notify, Escape, "io_uring"),
    trap!(io_uring_register, Notify, Escape, "io_uring"),
    trap!(open_by_handle_at, Notify, Escape, "opens a file by handle, bypassing path checks"),
    trap!(name_to_handle_at, Notify, Escape, "file handles are only useful to open_by_handle_at"),
    trap!(ptrace, Notify, Escape, "tracing another process reaches into its memory and syscalls"),
    trap!(process_vm_readv, Notify, Escape, "reads another process's memory"),
    trap!(process_vm_writev, Notify, Escape, "writes another process's memory"),
    trap!(pidfd_getfd, Notify, Escape, "steals another process's descriptors"),
    trap!(seccomp, NotifyIfArgHasBits(1, NEW_LISTENER), Escape, "a nested notify listener could answer the tree's own calls"),
    trap!(chroot, Notify, Escape, "changes how paths resolve under ward's emulation"),
    trap!(pivot_root, Notify, Escape, "remaps the filesystem"),
    trap!(mount, Notify, Escape, "bind mounts can remap a secret directory under the workspace"),
    trap!(umount2, Notify, Escape, "unmounting can reveal what the sandbox hides"),
    trap!(move_mount, Notify, Escape, "mount API"),
    trap!(open_tree, Notify, Escape, "mount API"),
    trap!(fsopen, Notify, Escape, "mount API"),
    trap!(fsmount, Notify, Escape, "mount API"),
    trap!(fspick, Notify, Escape, "mount API"),
    trap!(mount_setattr, Notify, Escape, "mount API"),
    trap!(unshare, NotifyIfArgHasBits(0, NAMESPACE_FLAGS), Escape, "a new user+mount namespace lets the tree remap paths"),
    trap!(setns, Notify, Escape, "joining another namespace"),
    trap!(clone, NotifyIfArgHasBits(0, NAMESPACE_FLAGS), Escape, "a child in new namespaces"),
    trap!(clone3, Notify, Escape, "clone3's flags are in memory where the filter cannot check them: ward answers ENOSYS (libc falls back to clone, whose flags the filter checks) and records it when it asks for new namespaces"),
    trap!(userfaultfd, Notify, Escape, "userfaultfd lets a process stall the kernel mid-copy (race amplifier)"),
];

/// The filter rules for [`TRAPS`].
pub fn notify_rules() -> Vec<Rule> {
    TRAPS
        .iter()
        .map(|t| Rule {
            nr: t.nr,
            action: t.action,
        })
        .collect()
}

/// Looks up a trap by syscall number.
pub fn trap_for(nr: i32) -> Option<&'static Trap> {
    TRAPS.iter().find(|t| t.nr as i32 == nr)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_builds_into_a_program() {
        let prog = crate::bpf::build(&notify_rules()).unwrap();
        assert!(prog.len() < 400, "{}", prog.len());
        for t in TRAPS {
            assert!(!t.reason.is_empty());
            assert_eq!(trap_for(t.nr as i32).unwrap().name, t.name);
        }
    }
}
