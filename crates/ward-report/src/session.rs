//! A session to report on: metadata plus events, from the audit store, an events file
//! (`ward exec --events`) or an strace log.

use crate::analyze::ImportStats;
use crate::strace::{self, StraceInput, StraceOptions};
use serde::Serialize;
use ward_event::{Event, OpKind, PathBytes, Timestamp};

/// Where a session's events came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Source {
    /// ward's audit store.
    Audit,
    /// A JSON Lines events file.
    Events,
    /// An imported strace log.
    Strace,
}

/// One session: what the report needs to know besides the events.
#[derive(Debug, Clone)]
pub struct Session {
    /// Id.
    pub id: String,
    /// Column header (a short id, a file name).
    pub label: String,
    /// Origin.
    pub source: Source,
    /// Project directory: files under it are "in the project".
    pub project: PathBytes,
    /// Home directory, shown as `~` and used for home-relative rules.
    pub home: Option<PathBytes>,
    /// Start.
    pub start: Option<Timestamp>,
    /// End.
    pub end: Option<Timestamp>,
    /// The command run.
    pub command: Option<Vec<PathBytes>>,
    /// Profile name (selects runtime rules).
    pub profile: Option<String>,
    /// Events in order.
    pub events: Vec<Event>,
    /// Import statistics (strace).
    pub import: Option<ImportStats>,
}

impl Session {
    /// A session from events alone (an events file): start and end are the first and last event
    /// times, the command is the first successful exec's argv.
    pub fn from_events(id: Option<String>, label: String, project: PathBytes, home: Option<PathBytes>, events: Vec<Event>) -> Session {
        let start = events.iter().map(|e| e.ts).min();
        let end = events.iter().map(|e| e.ts).max();
        let command = first_exec_argv(&events);
        Session {
            id: id
                .or_else(|| events.first().map(|e| e.session.clone()))
                .unwrap_or_else(|| label.clone()),
            label,
            source: Source::Events,
            project,
            home,
            start,
            end,
            command,
            profile: None,
            events,
            import: None,
        }
    }

    /// A session from strace log files (one session: several files are `-ff` per-process files).
    ///
    /// `project` is also the working directory assumed for relative paths.
    pub fn from_strace(label: String, inputs: &[StraceInput<'_>], project: PathBytes, home: Option<PathBytes>) -> Session {
        Session::from_strace_with(label, inputs, project, home, None)
    }

    /// [`Session::from_strace`] with symlink resolution (see [`crate::strace`]).
    pub fn from_strace_with(
        label: String,
        inputs: &[StraceInput<'_>],
        project: PathBytes,
        home: Option<PathBytes>,
        resolve: Option<strace::Resolver>,
    ) -> Session {
        let opts = StraceOptions {
            cwd: Some(project.clone()),
            session: Some(format!("strace:{label}")),
            resolve,
        };
        let log = strace::import(inputs, &opts);
        let import = ImportStats {
            files: inputs.iter().map(|i| i.name.clone()).collect(),
            lines: log.lines as u64,
            not_understood: log.problem_count as u64,
            unfinished: log.unfinished as u64,
            truncated_strings: log.truncated_strings as u64,
            problems: log.problems.clone(),
        };
        Session {
            id: format!("strace:{label}"),
            label,
            source: Source::Strace,
            project,
            home,
            start: log.start,
            end: log.end,
            command: log.root_argv.clone(),
            profile: None,
            events: log.events,
            import: Some(import),
        }
    }
}

fn first_exec_argv(events: &[Event]) -> Option<Vec<PathBytes>> {
    events
        .iter()
        .find(|e| e.op.op_kind() == OpKind::ProcExec && e.outcome.is_ok())
        .and_then(|e| e.op.argv.clone())
}

/// Groups file names into sessions: `out.123`, `out.124` (`-ff` files of one run) form one
/// session named `out`; any other file is a session of its own. Order of first appearance is kept.
pub fn group_strace_files(names: &[String]) -> Vec<(String, Vec<usize>)> {
    let mut groups: Vec<(String, Vec<usize>)> = Vec::new();
    for (i, n) in names.iter().enumerate() {
        let base = n.rsplit('/').next().unwrap_or(n);
        let key = match strace::pid_from_file_name(n) {
            Some(_) => {
                let dir_end = n.len() - base.len();
                let stem = base.rsplit_once('.').map(|(s, _)| s).unwrap_or(base);
                format!("{}{}", &n[..dir_end], stem)
            }
            None => n.clone(),
        };
        match groups.iter_mut().find(|(k, _)| *k == key) {
            Some((_, v)) if strace::pid_from_file_name(n).is_some() => v.push(i),
            _ => groups.push((key, vec![i])),
        }
    }
    groups
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ff_files_group_by_stem() {
        let names: Vec<String> = ["t/out.12", "t/out.13", "a.log", "b.log", "t/out.14"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        let g = group_strace_files(&names);
        assert_eq!(
            g,
            vec![
                ("t/out".to_string(), vec![0, 1, 4]),
                ("a.log".to_string(), vec![2]),
                ("b.log".to_string(), vec![3]),
            ]
        );
    }
}
