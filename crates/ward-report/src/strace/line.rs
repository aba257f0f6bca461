//! One line of strace output, parsed without any state: prefix (pid, time), then a system call
//! with its arguments and result, the start or the end of an interrupted call, a process exit,
//! a signal, or one of strace's own messages.
//!
//! The parser is total: every input gives a [`Line`] or a [`LineError`], never a panic, and its
//! work is linear in the input (nesting is capped at [`MAX_DEPTH`]). It is the function the fuzz
//! target drives.

use std::fmt;

/// Deepest nesting of `{…}`, `[…]` and `f(…)` the parser follows before giving up on a line.
pub const MAX_DEPTH: usize = 32;

/// Why a line was not understood.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LineError(pub String);

impl fmt::Display for LineError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

fn err<T>(msg: impl Into<String>) -> Result<T, LineError> {
    Err(LineError(msg.into()))
}

/// An argument (or part of one) as strace printed it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Arg {
    /// A quoted string, C escapes decoded. `truncated` when strace cut it (`"…"...`).
    Str {
        /// The bytes.
        bytes: Vec<u8>,
        /// Whether strace printed only a prefix (`-s` limit).
        truncated: bool,
    },
    /// `{key=value, …}`; keys are `None` for positional members.
    Struct(Vec<(Option<String>, Arg)>),
    /// `[a, b, …]`; `truncated` when the list ends in `...`.
    Array {
        /// The items.
        items: Vec<Arg>,
        /// Whether strace left items out.
        truncated: bool,
    },
    /// `name(args)`: `htons(443)`, `inet_addr("1.2.3.4")`, `makedev(…)`.
    Call(String, Vec<Arg>),
    /// Anything else: a number, a flag set (`O_RDONLY|O_CLOEXEC`), `AT_FDCWD`, `0x7ffd…`, `NULL`.
    Word(String),
    /// A lone `...`.
    Ellipsis,
}

impl Arg {
    /// The word, if this is one.
    pub fn word(&self) -> Option<&str> {
        match self {
            Arg::Word(w) => Some(w),
            _ => None,
        }
    }

    /// The word as a signed integer (decimal or `0x` hex).
    pub fn int(&self) -> Option<i64> {
        parse_int(self.word()?)
    }

    /// A struct member by key.
    pub fn field(&self, key: &str) -> Option<&Arg> {
        match self {
            Arg::Struct(fields) => fields
                .iter()
                .find(|(k, _)| k.as_deref() == Some(key))
                .map(|(_, v)| v),
            _ => None,
        }
    }
}

/// How a call returned.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Ret {
    /// A non-negative value.
    Ok(i64),
    /// `-1 ENAME (text)`.
    Err(String),
    /// `?` or a form the parser does not read (`= ? <unavailable>`).
    Unknown,
}

/// A complete system call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Call {
    /// System call name.
    pub name: String,
    /// Arguments.
    pub args: Vec<Arg>,
    /// Result.
    pub ret: Ret,
}

/// What a line holds after its prefix.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Body {
    /// A complete call.
    Call(Call),
    /// `name(args <unfinished ...>`: the text before the marker, to be joined with the resumption.
    Unfinished {
        /// System call name.
        name: String,
        /// The call text up to the marker (`openat(AT_FDCWD, "/x", O_RDONLY`).
        text: String,
    },
    /// `<... name resumed>rest`.
    Resumed {
        /// System call name.
        name: String,
        /// Text after `resumed>`.
        rest: String,
    },
    /// `+++ exited with N +++`, `+++ killed by SIG +++`, `+++ superseded by execve … +++`.
    Exit(String),
    /// `--- SIGCHLD {…} ---`.
    Signal,
    /// strace's own message (`strace: Process 42 attached`); `attached` holds the pid named.
    Note {
        /// The pid of `Process N attached`.
        attached: Option<i32>,
    },
    /// An empty line.
    Blank,
}

/// A parsed line: optional pid and time prefix, then the body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Line {
    /// Pid from `[pid N]` or a leading number (`-o` with `-f`).
    pub pid: Option<i32>,
    /// Time in nanoseconds: since the epoch with `-ttt`, since midnight with `-t`/`-tt`.
    pub ts: Option<u64>,
    /// The rest.
    pub body: Body,
}

/// Parses one line (without its newline).
pub fn parse_line(line: &str) -> Result<Line, LineError> {
    let line = line.trim_end_matches(['\r', '\n']);
    if line.trim().is_empty() {
        return Ok(Line {
            pid: None,
            ts: None,
            body: Body::Blank,
        });
    }
    if let Some(rest) = line.strip_prefix("strace: ") {
        let attached = rest
            .strip_prefix("Process ")
            .and_then(|r| r.strip_suffix(" attached"))
            .and_then(|n| n.trim().parse().ok());
        return Ok(Line {
            pid: None,
            ts: None,
            body: Body::Note { attached },
        });
    }
    let mut s = line;
    let mut pid = None;
    if let Some(rest) = s.strip_prefix("[pid ") {
        let end = rest.find(']').ok_or_else(|| LineError("unclosed [pid".into()))?;
        pid = Some(
            rest[..end]
                .trim()
                .parse::<i32>()
                .map_err(|_| LineError("bad pid in [pid N]".into()))?,
        );
        s = rest[end + 1..].trim_start();
    }
    // A leading integer is the pid (`-o FILE` with `-f`), a leading decimal is `-ttt` time.
    let mut ts = None;
    for _ in 0..2 {
        let tok_end = s.find(' ').unwrap_or(s.len());
        let tok = &s[..tok_end];
        if pid.is_none() && ts.is_none() && !tok.is_empty() && tok.bytes().all(|b| b.is_ascii_digit()) {
            pid = Some(tok.parse::<i32>().map_err(|_| LineError("pid out of range".into()))?);
            s = s[tok_end..].trim_start();
            continue;
        }
        if ts.is_none() {
            if let Some(t) = parse_time(tok) {
                ts = Some(t);
                s = s[tok_end..].trim_start();
                continue;
            }
        }
        break;
    }
    let body = parse_body(s)?;
    Ok(Line { pid, ts, body })
}

/// `-ttt` (`1700000000.123456`), `-tt` (`12:34:56.123456`) or `-t` (`12:34:56`).
fn parse_time(tok: &str) -> Option<u64> {
    if tok.contains(':') {
        let mut parts = tok.splitn(3, ':');
        let h: u64 = parts.next()?.parse().ok()?;
        let m: u64 = parts.next()?.parse().ok()?;
        let rest = parts.next()?;
        let (sec, frac) = rest.split_once('.').unwrap_or((rest, ""));
        if h > 23 || m > 59 || sec.len() != 2 {
            return None;
        }
        let sec: u64 = sec.parse().ok()?;
        let nanos = frac_nanos(frac)?;
        return Some(((h * 60 + m) * 60 + sec) * 1_000_000_000 + nanos);
    }
    let (sec, frac) = tok.split_once('.')?;
    if sec.is_empty() || !sec.bytes().all(|b| b.is_ascii_digit()) || sec.len() > 12 {
        return None;
    }
    let sec: u64 = sec.parse().ok()?;
    sec.checked_mul(1_000_000_000)?.checked_add(frac_nanos(frac)?)
}

fn frac_nanos(frac: &str) -> Option<u64> {
    if frac.len() > 9 || !frac.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    if frac.is_empty() {
        return Some(0);
    }
    let v: u64 = frac.parse().ok()?;
    Some(v * 10u64.pow(9 - frac.len() as u32))
}

fn parse_body(s: &str) -> Result<Body, LineError> {
    if s.starts_with("+++") {
        let inner = s.trim_start_matches('+').trim_end_matches('+').trim();
        return Ok(Body::Exit(inner.to_string()));
    }
    if s.starts_with("---") {
        return Ok(Body::Signal);
    }
    if let Some(rest) = s.strip_prefix("<... ") {
        let end = rest
            .find(" resumed>")
            .ok_or_else(|| LineError("`<...` without `resumed>`".into()))?;
        let name = &rest[..end];
        if !is_ident(name) {
            return err("bad system call name in resumption");
        }
        return Ok(Body::Resumed {
            name: name.to_string(),
            rest: rest[end + " resumed>".len()..].to_string(),
        });
    }
    let paren = s.find('(').ok_or_else(|| LineError("no system call".into()))?;
    let name = &s[..paren];
    if !is_ident(name) {
        return err("no system call name");
    }
    if let Some(text) = s.strip_suffix("<unfinished ...>") {
        return Ok(Body::Unfinished {
            name: name.to_string(),
            text: text.trim_end().to_string(),
        });
    }
    parse_call(s).map(Body::Call)
}

fn is_ident(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 64
        && s.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
        && !s.as_bytes()[0].is_ascii_digit()
}

/// Parses `name(args) = ret …`.
pub fn parse_call(s: &str) -> Result<Call, LineError> {
    let paren = s.find('(').ok_or_else(|| LineError("no `(`".into()))?;
    let name = &s[..paren];
    if !is_ident(name) {
        return err("no system call name");
    }
    let mut p = Parser {
        s: s.as_bytes(),
        i: paren + 1,
    };
    let args = p.items(b')', 0)?;
    let ret = parse_ret(&s[p.i..])?;
    Ok(Call {
        name: name.to_string(),
        args,
        ret,
    })
}

fn parse_ret(s: &str) -> Result<Ret, LineError> {
    let s = s.trim_start();
    let s = s
        .strip_prefix('=')
        .ok_or_else(|| LineError("no `=` after the arguments (truncated line?)".into()))?
        .trim_start();
    let tok_end = s.find([' ', '<']).unwrap_or(s.len());
    let tok = &s[..tok_end];
    if tok == "?" {
        return Ok(Ret::Unknown);
    }
    let v = parse_int(tok).ok_or_else(|| LineError(format!("bad return value {tok:?}")))?;
    if v < 0 {
        let rest = s[tok_end..].trim_start();
        let name_end = rest.find(' ').unwrap_or(rest.len());
        let name = &rest[..name_end];
        if name.starts_with('E') && name.bytes().all(|b| b.is_ascii_uppercase() || b.is_ascii_digit()) {
            return Ok(Ret::Err(name.to_string()));
        }
        return err("negative return without an error name");
    }
    Ok(Ret::Ok(v))
}

fn parse_int(s: &str) -> Option<i64> {
    if let Some(hex) = s.strip_prefix("0x") {
        return u64::from_str_radix(hex, 16).ok().map(|v| v as i64);
    }
    s.parse().ok()
}

struct Parser<'a> {
    s: &'a [u8],
    i: usize,
}

impl Parser<'_> {
    fn peek(&self) -> Option<u8> {
        self.s.get(self.i).copied()
    }

    fn starts_with(&self, pat: &[u8]) -> bool {
        self.s[self.i.min(self.s.len())..].starts_with(pat)
    }

    /// Skips spaces and `/* comments */`.
    fn skip_ws(&mut self) -> Result<(), LineError> {
        loop {
            match self.peek() {
                Some(b' ' | b'\t') => self.i += 1,
                Some(b'/') if self.starts_with(b"/*") => {
                    let rest = &self.s[self.i + 2..];
                    let end = find(rest, b"*/").ok_or_else(|| LineError("unclosed comment".into()))?;
                    self.i += 2 + end + 2;
                }
                _ => return Ok(()),
            }
        }
    }

    /// Items separated by `,` up to `close`, which is consumed.
    fn items(&mut self, close: u8, depth: usize) -> Result<Vec<Arg>, LineError> {
        Ok(self.fields(close, depth)?.into_iter().map(|(_, v)| v).collect())
    }

    fn fields(&mut self, close: u8, depth: usize) -> Result<Vec<(Option<String>, Arg)>, LineError> {
        if depth > MAX_DEPTH {
            return err("nested too deeply");
        }
        let mut out = Vec::new();
        self.skip_ws()?;
        if self.peek() == Some(close) {
            self.i += 1;
            return Ok(out);
        }
        loop {
            self.skip_ws()?;
            // `key=value` inside structs; a key is an identifier followed by `=`.
            let mut key = None;
            let start = self.i;
            while let Some(b) = self.peek() {
                if b.is_ascii_alphanumeric() || b == b'_' || b == b'.' {
                    self.i += 1;
                } else {
                    break;
                }
            }
            if self.i > start && self.peek() == Some(b'=') && !self.starts_with(b"==") {
                key = Some(String::from_utf8_lossy(&self.s[start..self.i]).into_owned());
                self.i += 1;
            } else {
                self.i = start;
            }
            let v = self.value(depth + 1)?;
            out.push((key, v));
            self.skip_ws()?;
            match self.peek() {
                Some(b',') => self.i += 1,
                Some(b) if b == close => {
                    self.i += 1;
                    return Ok(out);
                }
                Some(b) => return err(format!("unexpected `{}`", b as char)),
                None => return err("line ends inside the arguments (truncated?)"),
            }
        }
    }

    fn value(&mut self, depth: usize) -> Result<Arg, LineError> {
        if depth > MAX_DEPTH {
            return err("nested too deeply");
        }
        self.skip_ws()?;
        let v = match self.peek() {
            None => return err("line ends inside the arguments (truncated?)"),
            Some(b'"') => {
                let (bytes, truncated) = self.string()?;
                Arg::Str { bytes, truncated }
            }
            Some(b'@') if self.s.get(self.i + 1) == Some(&b'"') => {
                // Abstract unix socket name: `sun_path=@"name"`.
                self.i += 1;
                let (mut bytes, truncated) = self.string()?;
                bytes.insert(0, 0);
                Arg::Str { bytes, truncated }
            }
            Some(b'{') => {
                self.i += 1;
                Arg::Struct(self.fields(b'}', depth)?)
            }
            Some(b'[') => {
                self.i += 1;
                self.array(depth)?
            }
            Some(b'~') if self.s.get(self.i + 1) == Some(&b'[') => {
                self.i += 2;
                self.array(depth)?
            }
            Some(b'.') if self.starts_with(b"...") => {
                self.i += 3;
                Arg::Ellipsis
            }
            Some(_) => {
                let start = self.i;
                while let Some(b) = self.peek() {
                    if matches!(b, b',' | b')' | b'}' | b']' | b'(' | b'"' | b'{' | b'[') {
                        break;
                    }
                    if b == b' ' || b == b'/' && self.starts_with(b"/*") {
                        break;
                    }
                    self.i += 1;
                }
                let word = String::from_utf8_lossy(&self.s[start..self.i]).into_owned();
                if word.is_empty() {
                    return err(format!(
                        "unexpected `{}`",
                        self.peek().map(|b| b as char).unwrap_or(' ')
                    ));
                }
                if self.peek() == Some(b'(') {
                    self.i += 1;
                    let args = self.items(b')', depth)?;
                    Arg::Call(word, args)
                } else {
                    // Words such as `0x7ffd /* 35 vars */` or `1 /* … */`: comments are skipped by
                    // the caller; flag expressions like `O_RDONLY|O_CLOEXEC` have no spaces.
                    Arg::Word(word)
                }
            }
        };
        // Trailing `...` after a string or struct marks truncation.
        Ok(v)
    }

    fn array(&mut self, depth: usize) -> Result<Arg, LineError> {
        let mut items = self.items(b']', depth)?;
        let truncated = matches!(items.last(), Some(Arg::Ellipsis));
        if truncated {
            items.pop();
        }
        Ok(Arg::Array { items, truncated })
    }

    /// A quoted string with C escapes; the opening quote is at `self.i`.
    fn string(&mut self) -> Result<(Vec<u8>, bool), LineError> {
        self.i += 1;
        let mut out = Vec::new();
        loop {
            let b = self
                .peek()
                .ok_or_else(|| LineError("unterminated string (truncated line?)".into()))?;
            self.i += 1;
            match b {
                b'"' => break,
                b'\\' => {
                    let e = self
                        .peek()
                        .ok_or_else(|| LineError("unterminated escape".into()))?;
                    self.i += 1;
                    match e {
                        b'n' => out.push(b'\n'),
                        b't' => out.push(b'\t'),
                        b'r' => out.push(b'\r'),
                        b'v' => out.push(0x0b),
                        b'f' => out.push(0x0c),
                        b'a' => out.push(0x07),
                        b'b' => out.push(0x08),
                        b'e' => out.push(0x1b),
                        b'\\' | b'"' | b'\'' | b'?' => out.push(e),
                        b'x' => {
                            let mut v: u32 = 0;
                            let mut n = 0;
                            while n < 2 {
                                match self.peek().and_then(|c| (c as char).to_digit(16)) {
                                    Some(d) => {
                                        v = v * 16 + d;
                                        self.i += 1;
                                        n += 1;
                                    }
                                    None => break,
                                }
                            }
                            if n == 0 {
                                return err("`\\x` without hex digits");
                            }
                            out.push(v as u8);
                        }
                        b'0'..=b'7' => {
                            let mut v: u32 = (e - b'0') as u32;
                            let mut n = 1;
                            while n < 3 {
                                match self.peek() {
                                    Some(c @ b'0'..=b'7') => {
                                        v = v * 8 + (c - b'0') as u32;
                                        self.i += 1;
                                        n += 1;
                                    }
                                    _ => break,
                                }
                            }
                            if v > 0xff {
                                return err("octal escape above \\377");
                            }
                            out.push(v as u8);
                        }
                        other => return err(format!("unknown escape `\\{}`", other as char)),
                    }
                }
                other => out.push(other),
            }
        }
        let truncated = self.starts_with(b"...");
        if truncated {
            self.i += 3;
        }
        Ok((out, truncated))
    }
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(line: &str) -> Call {
        match parse_line(line).unwrap().body {
            Body::Call(c) => c,
            other => panic!("not a call: {other:?}"),
        }
    }

    #[test]
    fn prefixes_pid_and_time() {
        let l = parse_line(r#"7736  1795966318.707959 openat(AT_FDCWD, "/etc/ld.so.cache", O_RDONLY|O_CLOEXEC) = 3"#).unwrap();
        assert_eq!(l.pid, Some(7736));
        assert_eq!(l.ts, Some(1_795_966_318_707_959_000));
        let l = parse_line(r#"[pid  9615] 1795966407.398839 openat(AT_FDCWD, "/tmp", O_RDONLY) = 5"#).unwrap();
        assert_eq!(l.pid, Some(9615));
        let l = parse_line(r#"1795966407.405418 openat(AT_FDCWD, "/x", O_RDONLY) = 5"#).unwrap();
        assert_eq!(l.pid, None);
        assert!(l.ts.is_some());
        let l = parse_line(r#"12:00:01.5 open("/x", O_RDONLY) = 5"#).unwrap();
        assert_eq!(l.ts, Some(43_201_500_000_000));
        let l = parse_line(r#"open("/x", O_RDONLY) = 5"#).unwrap();
        assert_eq!((l.pid, l.ts), (None, None));
    }

    #[test]
    fn strings_decode_c_escapes() {
        let c = call(r#"openat(AT_FDCWD, "/tmp/st/\303\251\"q\n\x41\\", O_WRONLY|O_CREAT|O_TRUNC|O_CLOEXEC, 0666) = 5"#);
        assert_eq!(
            c.args[1],
            Arg::Str {
                bytes: b"/tmp/st/\xc3\xa9\"q\nA\\".to_vec(),
                truncated: false
            }
        );
        assert_eq!(c.args[2].word(), Some("O_WRONLY|O_CREAT|O_TRUNC|O_CLOEXEC"));
        assert_eq!(c.ret, Ret::Ok(5));
    }

    #[test]
    fn truncated_strings_and_arrays() {
        let c = call(r#"execve("/bin/x", ["x", "aaaa"..., ...], 0x7ffd /* 35 vars */) = 0"#);
        match &c.args[1] {
            Arg::Array { items, truncated } => {
                assert!(truncated);
                assert_eq!(
                    items[1],
                    Arg::Str {
                        bytes: b"aaaa".to_vec(),
                        truncated: true
                    }
                );
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn errors_and_unknown_returns() {
        let c = call(r#"openat(AT_FDCWD, "/nope", O_RDONLY) = -1 ENOENT (No such file or directory)"#);
        assert_eq!(c.ret, Ret::Err("ENOENT".into()));
        let c = call(r#"connect(3, {sa_family=AF_INET, sin_port=htons(9), sin_addr=inet_addr("127.0.0.1")}, 16) = -1 EINPROGRESS (Operation now in progress)"#);
        assert_eq!(c.ret, Ret::Err("EINPROGRESS".into()));
        let port = c.args[1].field("sin_port").unwrap();
        assert_eq!(port, &Arg::Call("htons".into(), vec![Arg::Word("9".into())]));
        let c = call(r#"execve("/x", ["x"], 0x1 /* 1 var */) = ?"#);
        assert_eq!(c.ret, Ret::Unknown);
        let c = call(r#"openat(AT_FDCWD, "/x", O_RDONLY) = 3</x> <0.000010>"#);
        assert_eq!(c.ret, Ret::Ok(3));
    }

    #[test]
    fn unfinished_resumed_exit_signal() {
        assert_eq!(
            parse_line("[pid  9617] 1795966407.403192 getdents64(5,  <unfinished ...>").unwrap().body,
            Body::Unfinished {
                name: "getdents64".into(),
                text: "getdents64(5,".into()
            }
        );
        assert_eq!(
            parse_line("[pid  9617] 1795966407.403286 <... getdents64 resumed>0x7efcf4000bd0 /* 34 entries */, 32768) = 1576").unwrap().body,
            Body::Resumed {
                name: "getdents64".into(),
                rest: "0x7efcf4000bd0 /* 34 entries */, 32768) = 1576".into()
            }
        );
        assert_eq!(
            parse_line("7736  1795966318.720869 +++ exited with 0 +++").unwrap().body,
            Body::Exit("exited with 0".into())
        );
        assert_eq!(
            parse_line("123 1.5 --- SIGCHLD {si_signo=SIGCHLD, si_code=CLD_EXITED} ---").unwrap().body,
            Body::Signal
        );
        assert_eq!(
            parse_line("strace: Process 9616 attached").unwrap().body,
            Body::Note { attached: Some(9616) }
        );
    }

    #[test]
    fn malformed_lines_are_errors_not_panics() {
        for bad in [
            "garbage",
            "[pid 12",
            "[pid x] open(\"/x\") = 1",
            "1.5 openat(AT_FDCWD, \"/x",
            "1.5 openat(AT_FDCWD, \"/x\", O_RDONLY",
            "1.5 openat(AT_FDCWD, \"/x\", O_RDONLY)",
            "1.5 openat(AT_FDCWD, \"/x\", O_RDONLY) = banana",
            "openat(AT_FDCWD, \"\\x\", O_RDONLY) = 3",
            "openat(AT_FDCWD, \"\\400\", O_RDONLY) = 3",
            "openat(\"/* never closed, 1) = 3",
            "open(/* never closed) = 3",
            "<... openat resumed",
            "99999999999 open(\"/x\", 0) = 3",
            "1.5 9open(\"/x\", 0) = 3",
            "x(((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((( = 1",
            "= 3",
            "-1 ENOENT",
            "open(\"/x\") = -1 (no name)",
        ] {
            assert!(parse_line(bad).is_err(), "{bad:?} parsed");
        }
    }

    #[test]
    fn deep_nesting_is_refused() {
        let deep = format!("f({}{}) = 0", "[".repeat(100_000), "]".repeat(100_000));
        assert!(parse_line(&deep).is_err());
    }
}
