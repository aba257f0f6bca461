//! The terminal reviewer: asks the person at ward's terminal about an operation the policy
//! wants reviewed.
//!
//! When ward runs with a terminal (`/dev/tty` opens and stdin or stderr is a TTY), a review
//! prints the question on its own lines on `/dev/tty` — the operation, the process, the
//! score and the filters that fired — and reads one key:
//!
//! | key | answer |
//! | --- | --- |
//! | `y` | allow once |
//! | `s` | allow for the rest of this session |
//! | `a` | always (written to the user's config by the policy engine) |
//! | `n`, Enter, Esc, Ctrl-C | deny |
//!
//! After `review_timeout` without an answer the review is [`ReviewAnswer::Timeout`] (denied).
//! Reviews arriving together are queued: one question at a time, in arrival order; a
//! queued review's timeout runs from when it was asked, so a long queue can time out
//! without being shown. Without a terminal the reviewer answers
//! [`ReviewAnswer::NoReviewer`] and the profile's headless action applies.
//!
//! Keeping the agent's terminal usable, and the limits of doing so from outside it:
//! - The question starts on a fresh line and ends with a one-line summary of the answer, so
//!   the agent's next output starts on a clean line. The terminal's modes (raw, echo) are
//!   saved before the key is read and restored after, whatever the agent had set.
//! - ward shares the terminal with the agent: output the agent writes while a question is
//!   shown can interleave with it, and a full-screen interface (alternate screen) shows the
//!   question over its own drawing until it redraws.
//! - Input is shared too: pending type-ahead is discarded before the question (so a stray
//!   key can't answer it), and if the agent is itself reading the terminal at that moment a
//!   key may reach the agent instead of ward; press it again, or answer from another
//!   terminal. Only a supervisor that owns the agent's terminal (a pty in between) can route
//!   keys exclusively.

use std::collections::VecDeque;
use std::io;
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};
use ward_event::{Actor, Decision, NoReviewer, OpKind, Operation, ReviewAnswer, Reviewer};

/// The reviewer for `ward exec`: the terminal when there is one, otherwise [`NoReviewer`].
pub fn terminal_reviewer(timeout: Duration) -> Arc<dyn Reviewer> {
    use std::io::IsTerminal;
    let has_tty = (io::stdin().is_terminal() || io::stderr().is_terminal()) && sys::Tty::open().is_ok();
    if !has_tty {
        return Arc::new(NoReviewer);
    }
    let color = std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty());
    Arc::new(TermReviewer::new(
        timeout,
        color,
        Box::new(|| sys::Tty::open().map(|t| Box::new(t) as Box<dyn TermIo>)),
    ))
}

/// A terminal, as the reviewer uses it.
pub trait TermIo {
    /// Writes text.
    fn write_all(&mut self, s: &[u8]) -> io::Result<()>;
    /// Discards pending input.
    fn discard_input(&mut self) -> io::Result<()>;
    /// Reads one key within `timeout`; `None` when the time passed.
    fn read_key(&mut self, timeout: Duration) -> io::Result<Option<u8>>;
}

type Opener = Box<dyn Fn() -> io::Result<Box<dyn TermIo>> + Send + Sync>;

/// Asks on a terminal, one question at a time.
pub struct TermReviewer {
    timeout: Duration,
    color: bool,
    open: Opener,
    queue: Mutex<Queue>,
    turn: Condvar,
}

#[derive(Default)]
struct Queue {
    next: u64,
    waiting: VecDeque<u64>,
}

impl TermReviewer {
    /// A reviewer that opens its terminal with `open` for each question.
    pub fn new(timeout: Duration, color: bool, open: Opener) -> Self {
        TermReviewer {
            timeout,
            color,
            open,
            queue: Mutex::new(Queue::default()),
            turn: Condvar::new(),
        }
    }

    /// Waits for this review's turn; `false` if the deadline passed first (the ticket is
    /// withdrawn).
    fn wait_turn(&self, deadline: Instant) -> Option<u64> {
        let mut q = self.queue.lock().unwrap_or_else(|p| p.into_inner());
        let ticket = q.next;
        q.next += 1;
        q.waiting.push_back(ticket);
        loop {
            if q.waiting.front() == Some(&ticket) {
                return Some(ticket);
            }
            let now = Instant::now();
            if now >= deadline {
                q.waiting.retain(|t| *t != ticket);
                self.turn.notify_all();
                return None;
            }
            q = self
                .turn
                .wait_timeout(q, deadline - now)
                .unwrap_or_else(|p| p.into_inner())
                .0;
        }
    }

    fn done(&self, ticket: u64) {
        let mut q = self.queue.lock().unwrap_or_else(|p| p.into_inner());
        q.waiting.retain(|t| *t != ticket);
        self.turn.notify_all();
    }

    fn ask(&self, term: &mut dyn TermIo, question: &str, deadline: Instant) -> io::Result<ReviewAnswer> {
        term.discard_input()?;
        term.write_all(question.as_bytes())?;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Ok(ReviewAnswer::Timeout);
            }
            match term.read_key(left)? {
                None => return Ok(ReviewAnswer::Timeout),
                Some(k) => {
                    if let Some(a) = answer_for_key(k) {
                        return Ok(a);
                    }
                }
            }
        }
    }
}

/// The answer a key gives; `None` for keys that mean nothing (ignored).
pub fn answer_for_key(k: u8) -> Option<ReviewAnswer> {
    match k {
        b'y' | b'Y' => Some(ReviewAnswer::AllowOnce),
        b's' | b'S' => Some(ReviewAnswer::AllowSession),
        b'a' | b'A' => Some(ReviewAnswer::AllowAlways),
        b'n' | b'N' | b'\r' | b'\n' | 0x1b | 0x03 | 0x04 => Some(ReviewAnswer::Deny),
        _ => None,
    }
}

impl Reviewer for TermReviewer {
    fn review(&self, actor: &Actor, op: &Operation, decision: &Decision) -> ReviewAnswer {
        let deadline = Instant::now() + self.timeout;
        let Some(ticket) = self.wait_turn(deadline) else {
            return ReviewAnswer::Timeout;
        };
        let answer = match (self.open)() {
            Err(_) => ReviewAnswer::NoReviewer,
            Ok(mut term) => {
                let q = question(actor, op, decision, self.timeout, self.color);
                let a = self.ask(term.as_mut(), &q, deadline).unwrap_or(ReviewAnswer::NoReviewer);
                let _ = term.write_all(summary(a, op, self.color).as_bytes());
                a
            }
        };
        self.done(ticket);
        answer
    }
}

/// What the operation is, in one line.
pub fn describe(op: &Operation) -> String {
    let kind = op.op_kind();
    let mut s = kind.as_str().to_string();
    match kind {
        OpKind::ProcExec => {
            if let Some(argv) = &op.argv {
                let words: Vec<String> = argv.iter().map(|a| a.to_string_lossy()).collect();
                s.push(' ');
                s.push_str(&truncate(&words.join(" "), 200));
            }
        }
        _ => {
            if let Some(p) = &op.path {
                s.push(' ');
                s.push_str(&truncate(&p.to_string_lossy(), 200));
            }
            if let Some(p) = &op.path2 {
                s.push_str(" -> ");
                s.push_str(&truncate(&p.to_string_lossy(), 200));
            }
            if let Some(a) = &op.addr {
                if op.path.is_none() {
                    s.push(' ');
                    s.push_str(&a.to_string());
                }
            }
            if let Some(d) = &op.domain {
                s.push_str(&format!(" ({d})"));
            }
        }
    }
    // Control characters in paths must not drive the terminal.
    s.chars().map(|c| if c.is_control() { '?' } else { c }).collect()
}

fn truncate(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        s.to_string()
    } else {
        let mut t: String = s.chars().take(max).collect();
        t.push('…');
        t
    }
}

fn clean(s: &str) -> String {
    s.chars().map(|c| if c.is_control() { '?' } else { c }).collect()
}

/// The question's text (CRLF line ends: the terminal may be in raw mode).
pub fn question(actor: &Actor, op: &Operation, d: &Decision, timeout: Duration, color: bool) -> String {
    let (bold, dim, yellow, reset) = if color { ("\x1b[1m", "\x1b[2m", "\x1b[33m", "\x1b[0m") } else { ("", "", "", "") };
    let mut s = String::from("\r\n");
    s.push_str(&format!("{yellow}{bold}ward: review{reset} {}\r\n", describe(op)));
    s.push_str(&format!(
        "  {dim}process{reset} {} (pid {}, parent {})\r\n",
        clean(&actor.exe.to_string_lossy()),
        actor.pid,
        actor.ppid
    ));
    s.push_str(&format!("  {dim}score{reset}   {} ({})\r\n", d.score, d.verdict.as_str()));
    for h in &d.filters {
        s.push_str(&format!("  {dim}{:<8}{reset}{:+} {}\r\n", clean(&h.filter), h.score, truncate(&clean(&h.reason), 160)));
    }
    s.push_str(&format!(
        "  {bold}[y]{reset} allow once  {bold}[s]{reset} allow for this session  {bold}[a]{reset} always  {bold}[n]{reset} deny   {dim}(denied in {}s){reset} ",
        timeout.as_secs()
    ));
    s
}

fn summary(a: ReviewAnswer, op: &Operation, color: bool) -> String {
    let (dim, reset) = if color { ("\x1b[2m", "\x1b[0m") } else { ("", "") };
    let what = match a {
        ReviewAnswer::AllowOnce => "allowed once",
        ReviewAnswer::AllowSession => "allowed for this session",
        ReviewAnswer::AllowAlways => "allowed always (saved to your config)",
        ReviewAnswer::Deny => "denied",
        ReviewAnswer::Timeout => "no answer: denied",
        ReviewAnswer::NoReviewer => "terminal unavailable",
    };
    format!("\r\n{dim}ward: {what}: {}{reset}\r\n", truncate(&describe(op), 120))
}

/// The real terminal: `/dev/tty` in non-canonical, no-echo mode while a key is read.
mod sys {
    use super::TermIo;
    use std::fs::File;
    use std::io::{self, Write};
    use std::os::fd::AsRawFd;
    use std::time::Duration;

    pub struct Tty {
        file: File,
        saved: Option<libc::termios>,
    }

    impl Tty {
        pub fn open() -> io::Result<Tty> {
            let file = std::fs::OpenOptions::new().read(true).write(true).open("/dev/tty")?;
            Ok(Tty { file, saved: None })
        }

        fn raw(&mut self) -> io::Result<()> {
            if self.saved.is_some() {
                return Ok(());
            }
            let fd = self.file.as_raw_fd();
            // SAFETY: termios is plain data; tcgetattr fills it completely on success and we
            // only use it then. `fd` is open for the lifetime of `self.file`.
            let mut t: libc::termios = unsafe { std::mem::zeroed() };
            // SAFETY: see above; `t` is a valid, writable termios.
            if unsafe { libc::tcgetattr(fd, &mut t) } != 0 {
                return Err(io::Error::last_os_error());
            }
            let saved = t;
            t.c_lflag &= !(libc::ICANON | libc::ECHO | libc::ISIG);
            t.c_cc[libc::VMIN] = 1;
            t.c_cc[libc::VTIME] = 0;
            // SAFETY: `t` is a termios obtained from tcgetattr on this fd, with flags changed.
            if unsafe { libc::tcsetattr(fd, libc::TCSANOW, &t) } != 0 {
                return Err(io::Error::last_os_error());
            }
            self.saved = Some(saved);
            Ok(())
        }
    }

    impl Drop for Tty {
        fn drop(&mut self) {
            if let Some(saved) = self.saved.take() {
                // SAFETY: `saved` came from tcgetattr on this same open fd; restoring the
                // agent's terminal modes is the point.
                unsafe {
                    libc::tcsetattr(self.file.as_raw_fd(), libc::TCSANOW, &saved);
                }
            }
        }
    }

    impl TermIo for Tty {
        fn write_all(&mut self, s: &[u8]) -> io::Result<()> {
            self.file.write_all(s)?;
            self.file.flush()
        }

        fn discard_input(&mut self) -> io::Result<()> {
            self.raw()?;
            // SAFETY: tcflush on an fd we own; it only discards queued input.
            unsafe {
                libc::tcflush(self.file.as_raw_fd(), libc::TCIFLUSH);
            }
            Ok(())
        }

        fn read_key(&mut self, timeout: Duration) -> io::Result<Option<u8>> {
            self.raw()?;
            let ms = timeout.as_millis().min(i32::MAX as u128) as i32;
            let mut pfd = libc::pollfd { fd: self.file.as_raw_fd(), events: libc::POLLIN, revents: 0 };
            // SAFETY: `pfd` is one valid pollfd; the count passed is 1.
            let n = unsafe { libc::poll(&mut pfd, 1, ms) };
            if n < 0 {
                let e = io::Error::last_os_error();
                return if e.kind() == io::ErrorKind::Interrupted { Ok(Some(0)) } else { Err(e) };
            }
            if n == 0 {
                return Ok(None);
            }
            let mut b = [0u8; 1];
            let got = io::Read::read(&mut self.file, &mut b)?;
            if got == 0 {
                return Err(io::Error::new(io::ErrorKind::UnexpectedEof, "terminal closed"));
            }
            Ok(Some(b[0]))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use ward_event::{Action, DecidedBy, FilterHit, PathBytes, Verdict};

    /// A scripted terminal: keys arrive after a delay; output is collected.
    struct Fake {
        keys: VecDeque<(Duration, u8)>,
        out: Arc<Mutex<String>>,
        active: Arc<AtomicUsize>,
    }

    impl TermIo for Fake {
        fn write_all(&mut self, s: &[u8]) -> io::Result<()> {
            self.out.lock().unwrap().push_str(&String::from_utf8_lossy(s));
            Ok(())
        }
        fn discard_input(&mut self) -> io::Result<()> {
            Ok(())
        }
        fn read_key(&mut self, timeout: Duration) -> io::Result<Option<u8>> {
            match self.keys.pop_front() {
                Some((delay, k)) if delay <= timeout => {
                    std::thread::sleep(delay);
                    Ok(Some(k))
                }
                _ => {
                    std::thread::sleep(timeout);
                    Ok(None)
                }
            }
        }
    }

    impl Drop for Fake {
        fn drop(&mut self) {
            self.active.fetch_sub(1, Ordering::SeqCst);
        }
    }

    fn reviewer(timeout: Duration, keys: Vec<(Duration, u8)>) -> (TermReviewer, Arc<Mutex<String>>, Arc<AtomicUsize>) {
        let out = Arc::new(Mutex::new(String::new()));
        let active = Arc::new(AtomicUsize::new(0));
        let keys = Arc::new(Mutex::new(VecDeque::from(keys)));
        let (o, a) = (out.clone(), active.clone());
        let r = TermReviewer::new(
            timeout,
            false,
            Box::new(move || {
                // One question at a time: never two terminals open at once.
                assert_eq!(a.fetch_add(1, Ordering::SeqCst), 0, "two questions at once");
                let k = keys.lock().unwrap().pop_front().into_iter().collect();
                Ok(Box::new(Fake { keys: k, out: o.clone(), active: a.clone() }) as Box<dyn TermIo>)
            }),
        );
        (r, out, active)
    }

    fn pending() -> (Actor, Operation, Decision) {
        let actor = Actor { pid: 42, tid: 42, ppid: 1, exe: PathBytes::from("/usr/bin/cat") };
        let op = Operation::new(OpKind::FileRead, "openat").with_path("/home/u/.env");
        let d = Decision {
            action: Action::Deny,
            verdict: Verdict::Review,
            score: 60,
            filters: vec![FilterHit { filter: "sensitive-path".into(), score: 60, reason: "read of a .env file".into() }],
            by: DecidedBy::Policy,
        };
        (actor, op, d)
    }

    #[test]
    fn keys_map_to_answers() {
        assert_eq!(answer_for_key(b'y'), Some(ReviewAnswer::AllowOnce));
        assert_eq!(answer_for_key(b's'), Some(ReviewAnswer::AllowSession));
        assert_eq!(answer_for_key(b'a'), Some(ReviewAnswer::AllowAlways));
        assert_eq!(answer_for_key(b'n'), Some(ReviewAnswer::Deny));
        assert_eq!(answer_for_key(b'\r'), Some(ReviewAnswer::Deny));
        assert_eq!(answer_for_key(3), Some(ReviewAnswer::Deny));
        assert_eq!(answer_for_key(b'x'), None);
    }

    #[test]
    fn shows_the_question_and_reads_the_answer() {
        let (r, out, _) = reviewer(Duration::from_secs(5), vec![(Duration::ZERO, b'y')]);
        let (a, op, d) = pending();
        assert_eq!(r.review(&a, &op, &d), ReviewAnswer::AllowOnce);
        let text = out.lock().unwrap().clone();
        assert!(text.starts_with("\r\n"), "question starts on its own line");
        for needle in ["file.read /home/u/.env", "/usr/bin/cat (pid 42", "score   60 (review)", "sensitive-path", "read of a .env file", "allowed once"] {
            assert!(text.contains(needle), "{needle:?} in {text:?}");
        }
        assert!(text.ends_with("\r\n"), "the agent's next output starts on a clean line");
    }

    #[test]
    fn unknown_keys_are_ignored_and_silence_times_out() {
        let (r, _, _) = reviewer(Duration::from_millis(300), vec![(Duration::ZERO, b'x')]);
        let (a, op, d) = pending();
        assert_eq!(r.review(&a, &op, &d), ReviewAnswer::Timeout);
    }

    #[test]
    fn control_characters_in_paths_do_not_reach_the_terminal() {
        let op = Operation::new(OpKind::FileRead, "openat").with_path("/tmp/\x1b[2Jx");
        assert!(!describe(&op).contains('\x1b'));
    }

    #[test]
    fn concurrent_reviews_are_asked_one_at_a_time() {
        let keys = (0..4).map(|_| (Duration::from_millis(30), b's')).collect();
        let (r, out, _) = reviewer(Duration::from_secs(10), keys);
        let r = Arc::new(r);
        let handles: Vec<_> = (0..4)
            .map(|_| {
                let r = r.clone();
                std::thread::spawn(move || {
                    let (a, op, d) = pending();
                    r.review(&a, &op, &d)
                })
            })
            .collect();
        for h in handles {
            assert_eq!(h.join().unwrap(), ReviewAnswer::AllowSession);
        }
        assert_eq!(out.lock().unwrap().matches("ward: review").count(), 4);
    }

    #[test]
    fn a_queued_review_times_out_while_waiting() {
        // The first question is never answered; the second's deadline passes in the queue.
        let (r, _, _) = reviewer(Duration::from_millis(200), vec![]);
        let r = Arc::new(r);
        let r2 = r.clone();
        let first = std::thread::spawn(move || {
            let (a, op, d) = pending();
            r2.review(&a, &op, &d)
        });
        std::thread::sleep(Duration::from_millis(20));
        let (a, op, d) = pending();
        let started = Instant::now();
        assert_eq!(r.review(&a, &op, &d), ReviewAnswer::Timeout);
        assert!(started.elapsed() < Duration::from_millis(400));
        assert_eq!(first.join().unwrap(), ReviewAnswer::Timeout);
    }
}
