//! The seccomp BPF program that routes the supervised tree's system calls to ward.
//!
//! Built here rather than with `seccompiler` because that crate has no
//! `SECCOMP_RET_USER_NOTIF` action. The program is small and its shape fixed:
//!
//! 1. architecture check: anything but `AUDIT_ARCH_X86_64` (an `int 0x80` i386 call) kills the
//!    process, and so does an x32 call (`nr >= 0x40000000`), before any other instruction;
//! 2. a binary search over the syscall numbers that have a rule;
//! 3. per rule: notify ward, notify only when an argument is non-zero / has flag bits, or fail
//!    with an errno without asking;
//! 4. everything else is allowed at native speed.
//!
//! The rules themselves are data ([`crate::syscalls::notify_rules`]), each with a reason.

/// `AUDIT_ARCH_X86_64`.
pub const AUDIT_ARCH_X86_64: u32 = 0xc000_003e;
/// x32 ABI bit in the syscall number.
pub const X32_SYSCALL_BIT: u32 = 0x4000_0000;

const BPF_LD: u16 = 0x00;
const BPF_JMP: u16 = 0x05;
const BPF_RET: u16 = 0x06;
const BPF_ALU: u16 = 0x04;
const BPF_W: u16 = 0x00;
const BPF_ABS: u16 = 0x20;
const BPF_JEQ: u16 = 0x10;
const BPF_JGE: u16 = 0x30;
const BPF_JSET: u16 = 0x40;
const BPF_AND: u16 = 0x50;
const BPF_K: u16 = 0x00;

const OFF_NR: u32 = 0;
const OFF_ARCH: u32 = 4;
const OFF_ARGS: u32 = 16;

/// `SECCOMP_RET_*` values.
pub const RET_KILL_PROCESS: u32 = 0x8000_0000;
/// Notify the listener.
pub const RET_USER_NOTIF: u32 = 0x7fc0_0000;
/// Allow.
pub const RET_ALLOW: u32 = 0x7fff_0000;
/// Fail with errno (low 16 bits).
pub const RET_ERRNO: u32 = 0x0005_0000;

/// What happens to a matching call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RuleAction {
    /// Always ask ward.
    Notify,
    /// Ask ward when the 64-bit argument `arg` is non-zero, else allow.
    NotifyIfArgNonZero(u8),
    /// Ask ward when any of `mask`'s bits are set in the low 32 bits of argument `arg`.
    NotifyIfArgHasBits(u8, u32),
    /// Ask ward when the low 32 bits of argument `arg` equal one of `values` (e.g. a few
    /// `fcntl` commands), else allow.
    NotifyIfArgIn(u8, &'static [u32]),
    /// Fail with this errno without asking.
    Errno(u16),
}

/// One syscall's rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rule {
    /// Syscall number (x86_64).
    pub nr: u32,
    /// What to do.
    pub action: RuleAction,
}

/// A BPF instruction in a form independent of libc (converted at install time).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Insn {
    /// Opcode.
    pub code: u16,
    /// Jump offset if true.
    pub jt: u8,
    /// Jump offset if false.
    pub jf: u8,
    /// Constant.
    pub k: u32,
}

fn stmt(code: u16, k: u32) -> Insn {
    Insn { code, jt: 0, jf: 0, k }
}

fn jump(code: u16, k: u32, jt: u8, jf: u8) -> Insn {
    Insn { code, jt, jf, k }
}

/// Errors building a program.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum BpfError {
    /// A conditional jump would exceed the 255-instruction reach of BPF jumps.
    #[error("BPF jump too long ({0} instructions)")]
    JumpTooLong(usize),
    /// Two rules for the same syscall.
    #[error("duplicate rule for syscall {0}")]
    Duplicate(u32),
}

/// Builds the program for `rules`.
pub fn build(rules: &[Rule]) -> Result<Vec<Insn>, BpfError> {
    let mut rules = rules.to_vec();
    rules.sort_by_key(|r| r.nr);
    for pair in rules.windows(2) {
        if pair[0].nr == pair[1].nr {
            return Err(BpfError::Duplicate(pair[0].nr));
        }
    }
    let mut prog = vec![
        stmt(BPF_LD | BPF_W | BPF_ABS, OFF_ARCH),
        jump(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0),
        stmt(BPF_RET | BPF_K, RET_KILL_PROCESS),
        stmt(BPF_LD | BPF_W | BPF_ABS, OFF_NR),
        jump(BPF_JMP | BPF_JGE | BPF_K, X32_SYSCALL_BIT, 0, 1),
        stmt(BPF_RET | BPF_K, RET_KILL_PROCESS),
    ];
    // The dispatch tree is emitted into its own buffer with symbolic targets, then the rule
    // bodies follow; jumps are resolved once every position is known.
    let mut tree: Vec<Pending> = Vec::new();
    emit_tree(&rules, &mut tree);
    let tree_start = prog.len();
    let bodies_start = tree_start + tree.len();
    // Each rule body: its instructions, in rule order.
    let mut body_pos = Vec::with_capacity(rules.len());
    let mut bodies: Vec<Insn> = Vec::new();
    for rule in &rules {
        body_pos.push(bodies_start + bodies.len());
        bodies.extend(rule_body(rule.action));
    }
    let allow_pos = bodies_start + bodies.len();
    for (i, p) in tree.iter().enumerate() {
        let here = tree_start + i;
        let resolve = |t: Target| -> Result<u8, BpfError> {
            let dest = match t {
                Target::Next => here + 1,
                Target::Tree(j) => tree_start + j,
                Target::Rule(r) => body_pos[r],
                Target::Allow => allow_pos,
            };
            let off = dest - here - 1;
            u8::try_from(off).map_err(|_| BpfError::JumpTooLong(off))
        };
        prog.push(Insn {
            code: p.code,
            jt: resolve(p.jt)?,
            jf: resolve(p.jf)?,
            k: p.k,
        });
    }
    prog.extend(bodies);
    prog.push(stmt(BPF_RET | BPF_K, RET_ALLOW));
    Ok(prog)
}

#[derive(Debug, Clone, Copy)]
enum Target {
    Next,
    Tree(usize),
    Rule(usize),
    Allow,
}

#[derive(Debug, Clone, Copy)]
struct Pending {
    code: u16,
    k: u32,
    jt: Target,
    jf: Target,
}

/// Emits a balanced comparison tree over `rules` (sorted), indices relative to the slice
/// start `base` in the full rule list.
fn emit_tree(rules: &[Rule], out: &mut Vec<Pending>) {
    fn go(rules: &[Rule], base: usize, out: &mut Vec<Pending>) {
        if rules.len() <= 4 {
            for (i, r) in rules.iter().enumerate() {
                let last = i + 1 == rules.len();
                out.push(Pending {
                    code: BPF_JMP | BPF_JEQ | BPF_K,
                    k: r.nr,
                    jt: Target::Rule(base + i),
                    jf: if last { Target::Allow } else { Target::Next },
                });
            }
            return;
        }
        let mid = rules.len() / 2;
        let at = out.len();
        out.push(Pending {
            code: BPF_JMP | BPF_JGE | BPF_K,
            k: rules[mid].nr,
            jt: Target::Next, // patched below to the right subtree
            jf: Target::Next,
        });
        go(&rules[..mid], base, out);
        let right = out.len();
        go(&rules[mid..], base + mid, out);
        out[at].jt = Target::Tree(right);
    }
    go(rules, 0, out);
}

fn arg_lo(arg: u8) -> u32 {
    OFF_ARGS + 8 * arg as u32
}

fn rule_body(action: RuleAction) -> Vec<Insn> {
    let notify = stmt(BPF_RET | BPF_K, RET_USER_NOTIF);
    let allow = stmt(BPF_RET | BPF_K, RET_ALLOW);
    match action {
        RuleAction::Notify => vec![notify],
        RuleAction::Errno(e) => vec![stmt(BPF_RET | BPF_K, RET_ERRNO | e as u32)],
        RuleAction::NotifyIfArgNonZero(arg) => vec![
            stmt(BPF_LD | BPF_W | BPF_ABS, arg_lo(arg)),
            jump(BPF_JMP | BPF_JEQ | BPF_K, 0, 0, 2),
            stmt(BPF_LD | BPF_W | BPF_ABS, arg_lo(arg) + 4),
            jump(BPF_JMP | BPF_JEQ | BPF_K, 0, 1, 0),
            notify,
            allow,
        ],
        RuleAction::NotifyIfArgIn(arg, values) => {
            // load; for each value: jeq value -> notify; finally allow.
            let n = values.len();
            let mut v = vec![stmt(BPF_LD | BPF_W | BPF_ABS, arg_lo(arg))];
            for (i, val) in values.iter().enumerate() {
                // Jump over the remaining comparisons and the allow to reach notify.
                let to_notify = (n - i - 1) as u8 + 1;
                v.push(jump(BPF_JMP | BPF_JEQ | BPF_K, *val, to_notify, 0));
            }
            v.push(allow);
            v.push(notify);
            v
        }
        RuleAction::NotifyIfArgHasBits(arg, mask) => vec![
            stmt(BPF_LD | BPF_W | BPF_ABS, arg_lo(arg)),
            stmt(BPF_ALU | BPF_AND | BPF_K, mask),
            jump(BPF_JMP | BPF_JSET | BPF_K, mask, 0, 1),
            notify,
            allow,
        ],
    }
}

/// Runs `prog` over a `seccomp_data` the way the kernel would (for tests).
pub fn interpret(prog: &[Insn], arch: u32, nr: u32, args: [u64; 6]) -> u32 {
    let mut data = Vec::with_capacity(64);
    data.extend_from_slice(&nr.to_ne_bytes());
    data.extend_from_slice(&arch.to_ne_bytes());
    data.extend_from_slice(&0u64.to_ne_bytes());
    for a in args {
        data.extend_from_slice(&a.to_ne_bytes());
    }
    let mut acc: u32 = 0;
    let mut pc = 0usize;
    while pc < prog.len() {
        let i = prog[pc];
        match i.code {
            c if c == BPF_LD | BPF_W | BPF_ABS => {
                let o = i.k as usize;
                acc = u32::from_ne_bytes([data[o], data[o + 1], data[o + 2], data[o + 3]]);
            }
            c if c == BPF_ALU | BPF_AND | BPF_K => acc &= i.k,
            c if c & 0x07 == BPF_JMP => {
                let taken = match c & 0xf0 {
                    BPF_JEQ => acc == i.k,
                    BPF_JGE => acc >= i.k,
                    BPF_JSET => acc & i.k != 0,
                    _ => panic!("unknown jump {c:#x}"),
                };
                pc += 1 + if taken { i.jt } else { i.jf } as usize;
                continue;
            }
            c if c == BPF_RET | BPF_K => return i.k,
            c => panic!("unknown opcode {c:#x}"),
        }
        pc += 1;
    }
    panic!("fell off the end of the program")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rules() -> Vec<Rule> {
        let mut v: Vec<Rule> = (0..60)
            .map(|i| Rule {
                nr: i * 7 + 1,
                action: RuleAction::Notify,
            })
            .collect();
        v.push(Rule {
            nr: 44,
            action: RuleAction::NotifyIfArgNonZero(4),
        });
        v.push(Rule {
            nr: 56,
            action: RuleAction::NotifyIfArgHasBits(0, 0x1000_0000),
        });
        v.push(Rule {
            nr: 435,
            action: RuleAction::Errno(38),
        });
        v.push(Rule {
            nr: 72,
            action: RuleAction::NotifyIfArgIn(1, &[8, 15]),
        });
        v
    }

    #[test]
    fn every_rule_and_nothing_else_is_routed() {
        let rules = rules();
        let prog = build(&rules).unwrap();
        for nr in 0..500u32 {
            let got = interpret(&prog, AUDIT_ARCH_X86_64, nr, [0; 6]);
            let want = match rules.iter().find(|r| r.nr == nr).map(|r| r.action) {
                Some(RuleAction::Notify) => RET_USER_NOTIF,
                Some(RuleAction::Errno(e)) => RET_ERRNO | e as u32,
                Some(_) | None => RET_ALLOW,
            };
            assert_eq!(got, want, "syscall {nr}");
        }
    }

    #[test]
    fn argument_conditions() {
        let prog = build(&rules()).unwrap();
        let mut args = [0u64; 6];
        assert_eq!(interpret(&prog, AUDIT_ARCH_X86_64, 44, args), RET_ALLOW);
        args[4] = 0x7fff_0000_0000;
        assert_eq!(interpret(&prog, AUDIT_ARCH_X86_64, 44, args), RET_USER_NOTIF);
        args[4] = 1;
        assert_eq!(interpret(&prog, AUDIT_ARCH_X86_64, 44, args), RET_USER_NOTIF);
        let mut clone = [0u64; 6];
        clone[0] = 0x11 | 0x0100_0000;
        assert_eq!(interpret(&prog, AUDIT_ARCH_X86_64, 56, clone), RET_ALLOW);
        clone[0] |= 0x1000_0000;
        assert_eq!(interpret(&prog, AUDIT_ARCH_X86_64, 56, clone), RET_USER_NOTIF);
    }

    #[test]
    fn argument_value_lists() {
        let prog = build(&rules()).unwrap();
        let with = |cmd: u64| {
            let mut a = [0u64; 6];
            a[1] = cmd;
            interpret(&prog, AUDIT_ARCH_X86_64, 72, a)
        };
        assert_eq!(with(8), RET_USER_NOTIF);
        assert_eq!(with(15), RET_USER_NOTIF);
        assert_eq!(with(3), RET_ALLOW);
        assert_eq!(with(0), RET_ALLOW);
    }

    #[test]
    fn foreign_arch_and_x32_are_killed_first() {
        let prog = build(&rules()).unwrap();
        assert_eq!(interpret(&prog, 0x4000_0003, 1, [0; 6]), RET_KILL_PROCESS);
        assert_eq!(
            interpret(&prog, AUDIT_ARCH_X86_64, X32_SYSCALL_BIT | 2, [0; 6]),
            RET_KILL_PROCESS
        );
    }

    #[test]
    fn duplicates_are_rejected() {
        let r = Rule {
            nr: 1,
            action: RuleAction::Notify,
        };
        assert_eq!(build(&[r, r]), Err(BpfError::Duplicate(1)));
    }
}
