//! What a session touched, as the tables people already read in write-ups of agent behaviour;
//! and the same from an strace log, so the published method can be reproduced.
//!
//! The crate is pure: events in, tables out. Nothing here touches the kernel or the audit store.
//!
//! ```text
//!  audit store / events file ──► Session ─┐
//!  strace log ──► strace::import ─► Session ─┤─► analyze ─► Report ─► render (text | markdown | json)
//!                                          ┘     (counting rules,   (one column per session)
//!                                                 sensitive paths,
//!                                                 findings)
//! ```
//!
//! - [`session`]: a session's metadata (project, home, start, end, command) and its events;
//! - [`strace`]: the strace-log parser ([`strace::line`], stateless and fuzzed) and the importer
//!   that turns calls into ward [`Event`](ward_event::Event)s;
//! - [`analyze`]: the counting rules (defined once, in its module docs, for ward's events and
//!   strace's alike), sensitive paths, findings;
//! - [`sensitive`]: which paths are sensitive and their class;
//! - [`runtime`]: the agent's own install and cache directories, left out of the file counts;
//! - [`render`]: text (100 columns, colour optional), Markdown, JSON.
//!
//! ```
//! use ward_report::{analyze::{Options, Report}, render::{render, RenderOptions, Format}};
//! use ward_report::session::Session;
//! use ward_report::strace::StraceInput;
//!
//! let log = br#"1 1700000000.000001 execve("/usr/bin/cat", ["cat", "a"], 0x1 /* 1 var */) = 0
//! 1 1700000000.000002 openat(AT_FDCWD, "a", O_RDONLY) = 3
//! 1 1700000000.5 +++ exited with 0 +++
//! "#;
//! let input = StraceInput { name: "raw.log".into(), pid: None, text: log };
//! let s = Session::from_strace("raw.log".into(), &[input], "/work/p".into(), None);
//! let report = Report::build(&[s], &Options::default());
//! assert_eq!(report.sessions[0].summary.files_read, 1);
//! assert_eq!(report.sessions[0].summary.files_in_project, 1);
//! let json = render(&report, &RenderOptions { format: Format::Json, ..Default::default() });
//! assert!(json.contains("\"files_read\": 1"));
//! ```
//!
//! # JSON schema (`report_version` 1)
//!
//! `ward report --format json` prints one object. Fields are only ever added; the version changes
//! if one is removed or changes meaning. Paths are text with the home directory shown as `~`
//! (bytes that are not UTF-8 are replaced by U+FFFD).
//!
//! ```text
//! {
//!   "report_version": 1,
//!   "sessions": [ SessionReport, … ]            // in the order asked for
//! }
//! ```
//!
//! `SessionReport`:
//!
//! | field | type | meaning |
//! | --- | --- | --- |
//! | `id` | string | session id; `strace:<file>` for imports |
//! | `label` | string | column header |
//! | `source` | `"audit"` \| `"events"` \| `"strace"` | where the events came from |
//! | `project` | string | project directory |
//! | `home` | string \| null | home directory used for `~` |
//! | `command` | [string] \| null | the command run |
//! | `start`, `end` | string \| null | RFC 3339 |
//! | `duration_secs` | number \| null | end − start |
//! | `summary` | object | see below |
//! | `sensitive` | [object] | `{path, class, class_label, opens, succeeded, targets, executables: [string]}`; `class` is one of `ssh`, `cloud-credentials`, `package-registry-token`, `shell-rc`, `git-config`, `keyring-dbus`, `system-accounts`, `other-process-env`; `targets` is the number of distinct PIDs for `/proc/<pid>/environ` (1 otherwise) |
//! | `findings` | [object] | `{kind, text, evidence: [string]}`; `kind` is one of `environ-sweep`, `proc-census`, `git-above-project`, `written-outside-project`, `network`, `nonstandard-port`, `executables`, `denied` |
//! | `environ_sweep` | object | `{attempted, succeeded, distinct_pids, succeeded_pids, own, executables}` (counts are integers) |
//! | `proc_census` | object | `{distinct_pids, opens: {file: count}, succeeded, executables, is_census}` |
//! | `git_above_project` | [object] | `{path, opens, succeeded, executables}` |
//! | `written_outside_project` | [object] | `{path, runtime_rule: string \| null, executables}` |
//! | `network` | [object] | `{address, ip, port, domain, family, attempts, succeeded, loopback, flag, executables}`; `family` is `inet`, `inet6` or `unix`; `flag` is a sentence or null |
//! | `executables` | [object] | `{path, count}`, most run first |
//! | `runtime_excluded` | [object] | `{rule, pattern, files, examples: [string]}` per runtime rule in force |
//! | `denied` | [object] | `{seq, kind, target, executable, reasons: [string], by}` |
//! | `import` | object \| null | strace only: `{files, lines, not_understood, unfinished, truncated_strings, problems: [{file, line, text, reason}]}` |
//!
//! `summary` (all integers; definitions in [`analyze`]): `files_read`, `files_written`,
//! `files_in_project`, `files_outside_project`, `dir_scans`, `subprocesses`, `processes`,
//! `connections`, `events`, `failed`, `denied`, `runtime_files`.

#![warn(missing_docs)]

pub mod analyze;
pub mod paths;
pub mod render;
pub mod runtime;
pub mod sensitive;
pub mod session;
pub mod strace;

pub use analyze::{Options, Report, SessionReport, Summary};
pub use render::{render, Format, RenderOptions};
pub use runtime::{RuntimeDirs, RuntimeRule};
pub use session::{Session, Source};
