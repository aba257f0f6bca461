//! The static seccomp wall: a BPF program installed by [`crate::seal`] under the
//! supervisor's notification filter.
//!
//! # What it does
//!
//! 1. **Arch hygiene first.** The program starts with its own prologue: a call whose
//!    `seccomp_data.arch` is not the native one (i386 through `int 0x80` on x86_64, arm32 on
//!    aarch64) is killed (`SECCOMP_RET_KILL_PROCESS`), and so is an x32 call (number
//!    ≥ `0x40000000` with `AUDIT_ARCH_X86_64`). seccompiler does check the arch (and kills on a
//!    mismatch), but it does *not* look at the x32 bit, so without the prologue
//!    `syscall(0x40000000 | nr)` would slip past every rule that names `nr`.
//! 2. **The rules** of `wall.json` (data, one `comment` per entry, embedded at build time),
//!    compiled with seccompiler: one sub-program per action, chained so that a sub-program's
//!    "allow" falls through to the next one and the last one allows.
//!
//! # Errno or trace: the precedence rule
//!
//! When several filters are installed the kernel takes the most severe result, and
//! `SECCOMP_RET_ERRNO` outranks `SECCOMP_RET_USER_NOTIF`. If the wall answered `ERRNO` for a
//! call the supervisor traps (socket, io_uring, ptrace, process_vm_*, pidfd_getfd, unshare and
//! clone with namespace flags, setns, chroot, mount and the new mount API, nested seccomp
//! listeners, file handles, userfaultfd), the supervisor would never see it and no event would
//! be recorded.
//!
//! One rule exists only in the wall on its own: `seccomp(SET_MODE_FILTER, NEW_LISTENER)`.
//! Supervised, the supervisor's code installs its own listener filter right after [`crate::seal`],
//! so the wall must let that call through; from then on the supervisor traps nested listeners
//! itself. Those entries are **backstops**: they return `SECCOMP_RET_TRACE`,
//! which ranks *below* `USER_NOTIF`, so the supervisor decides and records; and with no tracer
//! attached the kernel fails a `TRACE` call with `ENOSYS`, so the call still fails if the
//! supervisor is gone. With [`WallOptions::supervised`] false (the wall on its own) backstops
//! return their errno instead. (A ptrace-based supervisor backend would see these as
//! `PTRACE_EVENT_SECCOMP` stops and must refuse them.)

use crate::{SandboxError, SandboxPlan};
use seccompiler::{
    sock_filter, BpfProgram, SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition,
    SeccompFilter, SeccompRule, TargetArch,
};
use serde::Deserialize;
use std::collections::BTreeMap;

/// The wall's rules, as shipped.
pub const WALL_JSON: &str = include_str!("wall.json");

/// What the wall's rules depend on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WallOptions {
    /// Backstops use `SECCOMP_RET_TRACE` (true) or their errno (false).
    pub supervised: bool,
    /// `socket(AF_NETLINK, …, NETLINK_ROUTE)` allowed.
    pub allow_netlink_route: bool,
}

impl WallOptions {
    /// The options a plan asks for.
    pub fn from_plan(plan: &SandboxPlan) -> Self {
        WallOptions {
            supervised: plan.supervised,
            allow_netlink_route: plan.allow_netlink_route,
        }
    }
}

/// The wall file.
#[derive(Debug, Deserialize)]
pub struct WallFile {
    /// What the file is.
    pub comment: String,
    /// The rules.
    pub rules: Vec<WallRule>,
}

/// One entry of `wall.json`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WallRule {
    /// System call name.
    pub syscall: String,
    /// `errno` or `backstop`.
    pub action: RuleAction,
    /// Error name (`EPERM`).
    pub errno: String,
    /// Conditions on arguments, all of which must hold.
    #[serde(default)]
    pub args: Vec<ArgCheck>,
    /// Only included when an option holds.
    #[serde(default)]
    pub only_if: Option<OnlyIf>,
    /// Why.
    pub comment: String,
}

/// A rule's action.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RuleAction {
    /// Fail with the errno, whatever else is installed.
    Errno,
    /// Yield to the supervisor (`SECCOMP_RET_TRACE`) when supervised, else the errno.
    Backstop,
}

/// A rule's condition on options.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OnlyIf {
    /// When netlink route sockets are allowed.
    NetlinkRouteAllowed,
    /// When they are not.
    NetlinkRouteDenied,
    /// Only in the wall on its own (no supervisor filter will follow).
    Unsupervised,
}

/// A condition on one argument.
#[derive(Debug, Clone, Copy, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ArgCheck {
    /// Argument index (0-5).
    pub arg: u8,
    /// 32 or 64 bits.
    pub width: u8,
    /// Comparison.
    pub op: ArgOp,
    /// Operand.
    pub value: u64,
}

/// A comparison.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ArgOp {
    /// Equal.
    Eq,
    /// Not equal.
    Ne,
    /// Any bit of `value` set.
    AnyBits,
}

/// Parses the shipped rules.
pub fn rules() -> Result<WallFile, SandboxError> {
    serde_json::from_str(WALL_JSON).map_err(|e| SandboxError::Wall(format!("wall.json: {e}")))
}

const AUDIT_ARCH_X86_64: u32 = 62 | 0x8000_0000 | 0x4000_0000;
#[cfg(target_arch = "aarch64")]
const AUDIT_ARCH_AARCH64: u32 = 183 | 0x8000_0000 | 0x4000_0000;
const X32_SYSCALL_BIT: u32 = 0x4000_0000;
const BPF_LD_W_ABS: u16 = 0x20;
const BPF_JEQ_K: u16 = 0x15;
const BPF_JGE_K: u16 = 0x35;
const BPF_JGT_K: u16 = 0x25;
const BPF_JA: u16 = 0x05;
const BPF_RET_K: u16 = 0x06;
const SECCOMP_RET_KILL_PROCESS: u32 = 0x8000_0000;
const SECCOMP_RET_ALLOW: u32 = 0x7fff_0000;
const SECCOMP_RET_TRACE: u32 = 0x7ff0_0000;
const SECCOMP_RET_ERRNO: u32 = 0x0005_0000;

fn insn(code: u16, jt: u8, jf: u8, k: u32) -> sock_filter {
    sock_filter { code, jt, jf, k }
}

#[cfg(target_arch = "x86_64")]
fn native() -> (TargetArch, u32) {
    (TargetArch::x86_64, AUDIT_ARCH_X86_64)
}

#[cfg(target_arch = "aarch64")]
fn native() -> (TargetArch, u32) {
    (TargetArch::aarch64, AUDIT_ARCH_AARCH64)
}

/// The prologue: kill foreign-arch calls, then (on x86_64) x32 calls.
fn prologue(audit_arch: u32) -> Vec<sock_filter> {
    let mut p = vec![
        insn(BPF_LD_W_ABS, 0, 0, 4), // seccomp_data.arch
        insn(BPF_JEQ_K, 1, 0, audit_arch),
        insn(BPF_RET_K, 0, 0, SECCOMP_RET_KILL_PROCESS),
    ];
    if audit_arch == AUDIT_ARCH_X86_64 {
        p.extend([
            insn(BPF_LD_W_ABS, 0, 0, 0), // seccomp_data.nr
            insn(BPF_JGE_K, 0, 1, X32_SYSCALL_BIT),
            insn(BPF_RET_K, 0, 0, SECCOMP_RET_KILL_PROCESS),
        ]);
    }
    p
}

fn condition(c: &ArgCheck, bit: Option<u64>) -> Result<SeccompCondition, SandboxError> {
    let len = match c.width {
        32 => SeccompCmpArgLen::Dword,
        64 => SeccompCmpArgLen::Qword,
        w => return Err(SandboxError::Wall(format!("argument width {w} (32 or 64)"))),
    };
    let (op, value) = match (c.op, bit) {
        (ArgOp::Eq, _) => (SeccompCmpOp::Eq, c.value),
        (ArgOp::Ne, _) => (SeccompCmpOp::Ne, c.value),
        (ArgOp::AnyBits, Some(b)) => (SeccompCmpOp::MaskedEq(b), b),
        (ArgOp::AnyBits, None) => unreachable!("expanded per bit"),
    };
    SeccompCondition::new(c.arg, len, op, value).map_err(|e| SandboxError::Wall(e.to_string()))
}

/// Expands a rule into seccompiler rules: one per bit of its `any_bits` condition (at most
/// one such condition per rule), the other conditions repeated in each.
fn expand(rule: &WallRule) -> Result<Vec<SeccompRule>, SandboxError> {
    let any: Vec<&ArgCheck> = rule
        .args
        .iter()
        .filter(|c| c.op == ArgOp::AnyBits)
        .collect();
    if any.len() > 1 {
        return Err(SandboxError::Wall(format!(
            "{}: more than one any_bits condition",
            rule.syscall
        )));
    }
    let bits: Vec<Option<u64>> = match any.first() {
        Some(c) => (0..64)
            .map(|i| 1u64 << i)
            .filter(|b| c.value & b != 0)
            .map(Some)
            .collect(),
        None => vec![None],
    };
    let mut out = Vec::new();
    for bit in bits {
        let conds = rule
            .args
            .iter()
            .map(|c| condition(c, if c.op == ArgOp::AnyBits { bit } else { None }))
            .collect::<Result<Vec<_>, _>>()?;
        out.push(SeccompRule::new(conds).map_err(|e| SandboxError::Wall(e.to_string()))?);
    }
    Ok(out)
}

/// The seccomp action of a rule under `opts`.
pub fn action_of(rule: &WallRule, opts: &WallOptions) -> Result<SeccompAction, SandboxError> {
    let errno = ward_event::errno_from_name(&rule.errno).ok_or_else(|| {
        SandboxError::Wall(format!("{}: unknown errno {}", rule.syscall, rule.errno))
    })?;
    Ok(match rule.action {
        RuleAction::Backstop if opts.supervised => SeccompAction::Trace(0),
        _ => SeccompAction::Errno(errno as u32),
    })
}

/// Compiles the wall for `opts` into one BPF program.
pub fn compile(opts: &WallOptions) -> Result<BpfProgram, SandboxError> {
    let (arch, audit_arch) = native();
    let file = rules()?;
    // Group by action; within a group, by syscall number. An unconditional entry makes the
    // whole syscall match (an empty rule list in seccompiler).
    let mut groups: BTreeMap<u32, BTreeMap<i64, Option<Vec<SeccompRule>>>> = BTreeMap::new();
    let mut actions: BTreeMap<u32, SeccompAction> = BTreeMap::new();
    for rule in &file.rules {
        match rule.only_if {
            Some(OnlyIf::NetlinkRouteAllowed) if !opts.allow_netlink_route => continue,
            Some(OnlyIf::NetlinkRouteDenied) if opts.allow_netlink_route => continue,
            Some(OnlyIf::Unsupervised) if opts.supervised => continue,
            _ => {}
        }
        let Some(nr) = syscall_number(&rule.syscall) else {
            // Not on this architecture (e.g. no legacy call on aarch64).
            continue;
        };
        let action = action_of(rule, opts)?;
        let key = u32::from(action.clone());
        actions.insert(key, action);
        let entry = groups
            .entry(key)
            .or_default()
            .entry(nr)
            .or_insert_with(|| Some(Vec::new()));
        if rule.args.is_empty() {
            *entry = None;
        } else if let Some(v) = entry {
            v.extend(expand(rule)?);
        }
    }
    let mut program = prologue(audit_arch);
    let named: std::collections::BTreeSet<u32> = groups
        .values()
        .flat_map(|g| g.keys().map(|&nr| nr as u32))
        .collect();
    program.extend(fast_path(&named.into_iter().collect::<Vec<_>>())?);
    let count = groups.len();
    for (i, (key, syscalls)) in groups.into_iter().enumerate() {
        let map: BTreeMap<i64, Vec<SeccompRule>> = syscalls
            .into_iter()
            .map(|(nr, r)| (nr, r.unwrap_or_default()))
            .collect();
        let filter = SeccompFilter::new(map, SeccompAction::Allow, actions[&key].clone(), arch)
            .map_err(|e| SandboxError::Wall(e.to_string()))?;
        let mut sub: BpfProgram = filter
            .try_into()
            .map_err(|e: seccompiler::BackendError| SandboxError::Wall(e.to_string()))?;
        if i + 1 < count {
            // Chain: "allow" in this sub-program means "not matched here": go on with the next.
            let len = sub.len();
            for (j, ins) in sub.iter_mut().enumerate() {
                if ins.code == BPF_RET_K && ins.k == SECCOMP_RET_ALLOW {
                    *ins = insn(BPF_JA, 0, 0, (len - j - 1) as u32);
                }
            }
        }
        program.extend(sub);
    }
    if program.len() > 4096 {
        return Err(SandboxError::Wall(format!(
            "program has {} instructions (max 4096)",
            program.len()
        )));
    }
    Ok(program)
}

/// The fast path after the prologue: a binary search over the syscall numbers the rules name.
/// A call none of them names is allowed after a handful of comparisons instead of walking
/// every sub-program; a named one jumps to the sub-programs that follow.
fn fast_path(sorted: &[u32]) -> Result<Vec<sock_filter>, SandboxError> {
    /// Jumps still to resolve: to the sub-programs ("hit") or to the final allow ("miss").
    #[derive(Clone, Copy)]
    enum Target {
        None,
        Hit,
        Miss,
    }
    fn node(nrs: &[u32], out: &mut Vec<(sock_filter, Target)>) {
        if nrs.len() <= 3 {
            for &nr in nrs {
                out.push((insn(BPF_JEQ_K, 0, 0, nr), Target::Hit));
            }
            out.push((insn(BPF_JA, 0, 0, 0), Target::Miss));
            return;
        }
        let mid = nrs.len() / 2;
        // nr > nrs[mid-1] → right half, else left half (which follows directly).
        let mut left = Vec::new();
        node(&nrs[..mid], &mut left);
        out.push((
            insn(BPF_JGT_K, left.len() as u8, 0, nrs[mid - 1]),
            Target::None,
        ));
        out.extend(left);
        node(&nrs[mid..], out);
    }
    // The prologue left seccomp_data.nr in A on x86_64 only; load it again everywhere.
    let mut tree = vec![(insn(BPF_LD_W_ABS, 0, 0, 0), Target::None)];
    node(sorted, &mut tree);
    let miss = tree.len(); // index of the final allow
    let hit = miss + 1; // the sub-programs start after it
    let mut out = Vec::with_capacity(hit);
    for (i, (mut ins, target)) in tree.into_iter().enumerate() {
        match target {
            Target::None => {}
            Target::Hit => {
                ins.jt = u8::try_from(hit - i - 1).map_err(|_| {
                    SandboxError::Wall("fast path too long for an 8-bit jump".into())
                })?;
            }
            Target::Miss => ins.k = (miss - i - 1) as u32,
        }
        out.push(ins);
    }
    out.push(insn(BPF_RET_K, 0, 0, SECCOMP_RET_ALLOW));
    Ok(out)
}

/// Which action the wall gives a call, by running the program on it (a small classic-BPF
/// interpreter over `seccomp_data`). For tests and `ward sandbox check --explain`.
pub fn evaluate(program: &[sock_filter], arch: u32, nr: u32, args: [u64; 6]) -> u32 {
    evaluate_counting(program, arch, nr, args).0
}

/// [`evaluate`], also returning how many instructions ran.
pub fn evaluate_counting(
    program: &[sock_filter],
    arch: u32,
    nr: u32,
    args: [u64; 6],
) -> (u32, usize) {
    let mut steps = 0usize;
    let mut data = [0u32; 16];
    data[0] = nr;
    data[1] = arch;
    for (i, a) in args.iter().enumerate() {
        data[4 + 2 * i] = *a as u32;
        data[5 + 2 * i] = (*a >> 32) as u32;
    }
    let (mut acc, mut pc) = (0u32, 0usize);
    while pc < program.len() {
        steps += 1;
        let ins = &program[pc];
        let class = ins.code & 0x07;
        match class {
            0x00 => acc = data[(ins.k / 4) as usize], // LD W ABS
            0x04 => {
                // ALU with K
                match ins.code & 0xf0 {
                    0x50 => acc &= ins.k,
                    0x40 => acc |= ins.k,
                    op => panic!("ALU op {op:#x} not modelled"),
                }
            }
            0x05 => {
                let taken = match ins.code & 0xf0 {
                    0x00 => {
                        pc += 1 + ins.k as usize;
                        continue;
                    }
                    0x10 => acc == ins.k,
                    0x20 => acc > ins.k,
                    0x30 => acc >= ins.k,
                    0x40 => acc & ins.k != 0,
                    op => panic!("JMP op {op:#x} not modelled"),
                };
                pc += 1 + if taken {
                    ins.jt as usize
                } else {
                    ins.jf as usize
                };
                continue;
            }
            0x06 => return (ins.k, steps),
            c => panic!("BPF class {c:#x} not modelled"),
        }
        pc += 1;
    }
    panic!("fell off the end of the program")
}

/// The native `AUDIT_ARCH_*` value.
pub fn native_audit_arch() -> u32 {
    native().1
}

/// `SECCOMP_RET_*` helpers for readers of [`evaluate`].
pub mod ret {
    /// Kill the process.
    pub const KILL_PROCESS: u32 = super::SECCOMP_RET_KILL_PROCESS;
    /// Allow.
    pub const ALLOW: u32 = super::SECCOMP_RET_ALLOW;
    /// Trace (yield to the supervisor).
    pub const TRACE: u32 = super::SECCOMP_RET_TRACE;
    /// Fail with errno `e`.
    pub const fn errno(e: i32) -> u32 {
        super::SECCOMP_RET_ERRNO | (e as u32 & 0xffff)
    }
}

macro_rules! syscall_table {
    ($($name:ident),* $(,)?) => {
        /// The number of a system call on this architecture, by name.
        pub fn syscall_number(name: &str) -> Option<i64> {
            match name {
                $(stringify!($name) => Some(paste_sys!($name)),)*
                _ => arch_specific(name),
            }
        }
    };
}

macro_rules! paste_sys {
    (kexec_load) => {
        libc::SYS_kexec_load
    };
    (kexec_file_load) => {
        libc::SYS_kexec_file_load
    };
    (bpf) => {
        libc::SYS_bpf
    };
    (perf_event_open) => {
        libc::SYS_perf_event_open
    };
    (keyctl) => {
        libc::SYS_keyctl
    };
    (add_key) => {
        libc::SYS_add_key
    };
    (request_key) => {
        libc::SYS_request_key
    };
    (userfaultfd) => {
        libc::SYS_userfaultfd
    };
    (init_module) => {
        libc::SYS_init_module
    };
    (finit_module) => {
        libc::SYS_finit_module
    };
    (delete_module) => {
        libc::SYS_delete_module
    };
    (reboot) => {
        libc::SYS_reboot
    };
    (swapon) => {
        libc::SYS_swapon
    };
    (swapoff) => {
        libc::SYS_swapoff
    };
    (acct) => {
        libc::SYS_acct
    };
    (mount) => {
        libc::SYS_mount
    };
    (umount2) => {
        libc::SYS_umount2
    };
    (pivot_root) => {
        libc::SYS_pivot_root
    };
    (move_mount) => {
        libc::SYS_move_mount
    };
    (open_tree) => {
        libc::SYS_open_tree
    };
    (fsopen) => {
        libc::SYS_fsopen
    };
    (fsmount) => {
        libc::SYS_fsmount
    };
    (fsconfig) => {
        libc::SYS_fsconfig
    };
    (fspick) => {
        libc::SYS_fspick
    };
    (mount_setattr) => {
        libc::SYS_mount_setattr
    };
    (unshare) => {
        libc::SYS_unshare
    };
    (setns) => {
        libc::SYS_setns
    };
    (chroot) => {
        libc::SYS_chroot
    };
    (clone) => {
        libc::SYS_clone
    };
    (clone3) => {
        libc::SYS_clone3
    };
    (name_to_handle_at) => {
        libc::SYS_name_to_handle_at
    };
    (open_by_handle_at) => {
        libc::SYS_open_by_handle_at
    };
    (io_uring_setup) => {
        libc::SYS_io_uring_setup
    };
    (io_uring_enter) => {
        libc::SYS_io_uring_enter
    };
    (io_uring_register) => {
        libc::SYS_io_uring_register
    };
    (ptrace) => {
        libc::SYS_ptrace
    };
    (process_vm_readv) => {
        libc::SYS_process_vm_readv
    };
    (process_vm_writev) => {
        libc::SYS_process_vm_writev
    };
    (pidfd_getfd) => {
        libc::SYS_pidfd_getfd
    };
    (seccomp) => {
        libc::SYS_seccomp
    };
    (personality) => {
        libc::SYS_personality
    };
    (ioctl) => {
        libc::SYS_ioctl
    };
    (socket) => {
        libc::SYS_socket
    };
}

syscall_table!(
    kexec_load,
    kexec_file_load,
    bpf,
    perf_event_open,
    keyctl,
    add_key,
    request_key,
    userfaultfd,
    init_module,
    finit_module,
    delete_module,
    reboot,
    swapon,
    swapoff,
    acct,
    mount,
    umount2,
    pivot_root,
    move_mount,
    open_tree,
    fsopen,
    fsmount,
    fsconfig,
    fspick,
    mount_setattr,
    unshare,
    setns,
    chroot,
    clone,
    clone3,
    name_to_handle_at,
    open_by_handle_at,
    io_uring_setup,
    io_uring_enter,
    io_uring_register,
    ptrace,
    process_vm_readv,
    process_vm_writev,
    pidfd_getfd,
    seccomp,
    personality,
    ioctl,
    socket,
);

fn arch_specific(_name: &str) -> Option<i64> {
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    const SUPERVISED: WallOptions = WallOptions {
        supervised: true,
        allow_netlink_route: false,
    };
    const ALONE: WallOptions = WallOptions {
        supervised: false,
        allow_netlink_route: false,
    };

    fn eval(opts: &WallOptions, nr: i64, args: [u64; 6]) -> u32 {
        let p = compile(opts).unwrap();
        evaluate(&p, native_audit_arch(), nr as u32, args)
    }

    #[test]
    fn every_rule_names_a_known_syscall_errno_and_reason() {
        let file = rules().unwrap();
        assert!(file.rules.len() >= 40);
        for r in &file.rules {
            assert!(syscall_number(&r.syscall).is_some(), "{}", r.syscall);
            assert!(
                ward_event::errno_from_name(&r.errno).is_some(),
                "{}",
                r.errno
            );
            assert!(r.comment.len() > 10, "{} needs a reason", r.syscall);
        }
    }

    #[test]
    fn arch_prologue_kills_x32_and_foreign_arch_before_anything_else() {
        let p = compile(&SUPERVISED).unwrap();
        let getpid = libc::SYS_getpid as u32;
        assert_eq!(
            evaluate(&p, native_audit_arch(), getpid, [0; 6]),
            ret::ALLOW
        );
        assert_eq!(
            evaluate(&p, native_audit_arch(), 0x4000_0000 | getpid, [0; 6]),
            ret::KILL_PROCESS
        );
        const AUDIT_ARCH_I386: u32 = 3 | 0x4000_0000;
        assert_eq!(evaluate(&p, AUDIT_ARCH_I386, 20, [0; 6]), ret::KILL_PROCESS);
    }

    #[test]
    fn backstops_trace_when_supervised_and_fail_alone() {
        let newuser = [libc::CLONE_NEWUSER as u64, 0, 0, 0, 0, 0];
        for nr in [
            libc::SYS_io_uring_setup,
            libc::SYS_ptrace,
            libc::SYS_unshare,
            libc::SYS_mount,
            libc::SYS_clone,
            libc::SYS_umount2,
        ] {
            assert_eq!(eval(&SUPERVISED, nr, newuser), ret::TRACE, "{nr}");
            assert_eq!(eval(&ALONE, nr, newuser), ret::errno(libc::EPERM), "{nr}");
        }
        // unshare without a namespace flag is ordinary.
        assert_eq!(
            eval(
                &SUPERVISED,
                libc::SYS_unshare,
                [libc::CLONE_FILES as u64, 0, 0, 0, 0, 0]
            ),
            ret::ALLOW
        );
        assert_eq!(
            eval(&SUPERVISED, libc::SYS_unshare, [0x80, 0, 0, 0, 0, 0]),
            ret::TRACE
        );
        assert_eq!(
            eval(&SUPERVISED, libc::SYS_bpf, [0; 6]),
            ret::errno(libc::EPERM)
        );
        assert_eq!(
            eval(&SUPERVISED, libc::SYS_clone3, [0; 6]),
            ret::errno(libc::ENOSYS)
        );
    }

    #[test]
    fn socket_families_are_limited() {
        let s = libc::SYS_socket;
        for fam in [libc::AF_UNIX, libc::AF_INET, libc::AF_INET6] {
            assert_eq!(eval(&ALONE, s, [fam as u64, 1, 0, 0, 0, 0]), ret::ALLOW);
        }
        let eaf = ret::errno(libc::EAFNOSUPPORT);
        assert_eq!(
            eval(&ALONE, s, [libc::AF_PACKET as u64, 3, 0, 0, 0, 0]),
            eaf
        );
        assert_eq!(
            eval(&SUPERVISED, s, [libc::AF_PACKET as u64, 3, 0, 0, 0, 0]),
            ret::TRACE
        );
        assert_eq!(
            eval(&ALONE, s, [libc::AF_NETLINK as u64, 3, 0, 0, 0, 0]),
            eaf
        );
        let nl = WallOptions {
            supervised: false,
            allow_netlink_route: true,
        };
        assert_eq!(
            eval(&nl, s, [libc::AF_NETLINK as u64, 3, 0, 0, 0, 0]),
            ret::ALLOW
        );
        assert_eq!(eval(&nl, s, [libc::AF_NETLINK as u64, 3, 9, 0, 0, 0]), eaf);
        // The upper half of an int argument is ignored, as the kernel does.
        assert_eq!(
            eval(
                &ALONE,
                s,
                [(1u64 << 32) | libc::AF_INET as u64, 1, 0, 0, 0, 0]
            ),
            ret::ALLOW
        );
    }

    #[test]
    fn clone_namespace_flags_personality_and_tiocsti() {
        let eperm = ret::errno(libc::EPERM);
        let c = libc::SYS_clone;
        assert_eq!(
            eval(
                &ALONE,
                c,
                [libc::SIGCHLD as u64 | libc::CLONE_VM as u64, 0, 0, 0, 0, 0]
            ),
            ret::ALLOW
        );
        assert_eq!(
            eval(&ALONE, c, [libc::CLONE_NEWUSER as u64, 0, 0, 0, 0, 0]),
            eperm
        );
        assert_eq!(
            eval(&ALONE, c, [libc::CLONE_NEWNET as u64 | 17, 0, 0, 0, 0, 0]),
            eperm
        );
        let p = libc::SYS_personality;
        assert_eq!(eval(&ALONE, p, [0xffff_ffff, 0, 0, 0, 0, 0]), ret::ALLOW);
        assert_eq!(eval(&ALONE, p, [0, 0, 0, 0, 0, 0]), ret::ALLOW);
        assert_eq!(eval(&ALONE, p, [0x0040000, 0, 0, 0, 0, 0]), eperm);
        let i = libc::SYS_ioctl;
        assert_eq!(eval(&ALONE, i, [0, libc::TIOCSTI, 0, 0, 0, 0]), eperm);
        assert_eq!(
            eval(&ALONE, i, [0, libc::TIOCGWINSZ, 0, 0, 0, 0]),
            ret::ALLOW
        );
        let sc = libc::SYS_seccomp;
        assert_eq!(eval(&ALONE, sc, [1, 8, 0, 0, 0, 0]), eperm);
        assert_eq!(eval(&ALONE, sc, [1, 0, 0, 0, 0, 0]), ret::ALLOW);
        // Supervised, the supervisor's own listener is installed after the wall: allowed.
        assert_eq!(eval(&SUPERVISED, sc, [1, 8, 0, 0, 0, 0]), ret::ALLOW);
    }

    #[test]
    fn ordinary_calls_pass_in_few_instructions() {
        let p = compile(&SUPERVISED).unwrap();
        let mut worst = 0;
        for nr in [
            libc::SYS_read,
            libc::SYS_openat,
            libc::SYS_execve,
            libc::SYS_getdents64,
            libc::SYS_connect,
        ] {
            let (action, steps) = evaluate_counting(&p, native_audit_arch(), nr as u32, [0; 6]);
            assert_eq!(action, ret::ALLOW, "{nr}");
            worst = worst.max(steps);
        }
        eprintln!(
            "wall: {} instructions; an allowed call runs {worst} of them",
            p.len()
        );
        assert!(p.len() < 500 && worst < 20, "{} / {worst}", p.len());
    }

    #[test]
    fn the_fast_path_changes_no_decision() {
        // The same rules without the fast path: the prologue and the sub-programs alone.
        let fast = compile(&SUPERVISED).unwrap();
        let start = prologue(native_audit_arch()).len();
        let tree_len = fast[start..]
            .iter()
            .position(|i| i.code == BPF_RET_K)
            .unwrap()
            + 1;
        let mut slow = fast[..start].to_vec();
        slow.extend_from_slice(&fast[start + tree_len..]);
        let arg_sets: [[u64; 6]; 5] = [
            [0; 6],
            [libc::AF_PACKET as u64, 3, 0, 0, 0, 0],
            [libc::CLONE_NEWUSER as u64, libc::TIOCSTI, 0, 0, 0, 0],
            [1, 8, 9, 0, 0, 0],
            [u64::MAX; 6],
        ];
        for nr in 0..600u32 {
            for args in arg_sets {
                let a = evaluate(&fast, native_audit_arch(), nr, args);
                let b = evaluate(&slow, native_audit_arch(), nr, args);
                assert_eq!(a, b, "nr {nr} args {args:?}");
            }
        }
    }
}
