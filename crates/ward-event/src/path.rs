//! Paths as bytes, written as text when they are UTF-8.

use base64::Engine as _;
use serde::de::{self, MapAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::ffi::{OsStr, OsString};
use std::fmt;
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::path::{Path, PathBuf};

/// A Linux path (or argument): arbitrary bytes except NUL.
///
/// Serialised as a JSON string when the bytes are UTF-8, otherwise as `{"bytes":"<base64>"}`,
/// the convention ripgrep's JSON output uses, so a non-UTF-8 name is kept exactly.
#[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct PathBytes(Vec<u8>);

impl PathBytes {
    /// Wraps bytes.
    pub fn new(bytes: Vec<u8>) -> Self {
        PathBytes(bytes)
    }

    /// The raw bytes.
    pub fn as_bytes(&self) -> &[u8] {
        &self.0
    }

    /// Consumes into the raw bytes.
    pub fn into_bytes(self) -> Vec<u8> {
        self.0
    }

    /// As a `Path` (lossless on Unix).
    pub fn as_path(&self) -> &Path {
        Path::new(OsStr::from_bytes(&self.0))
    }

    /// The text if the bytes are UTF-8.
    pub fn as_str(&self) -> Option<&str> {
        std::str::from_utf8(&self.0).ok()
    }

    /// Text for people: invalid UTF-8 replaced by U+FFFD.
    pub fn to_string_lossy(&self) -> String {
        String::from_utf8_lossy(&self.0).into_owned()
    }

    /// Whether the path starts with `prefix` as a whole component (`/a/b` is under `/a`, not
    /// under `/a/` nor `/ab`).
    pub fn starts_with_dir(&self, prefix: &[u8]) -> bool {
        is_under(&self.0, prefix)
    }

    /// Whether empty.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

/// Whether `path` is `dir` or lies below it, by whole components (`/a/b` is under `/a` and
/// `/a/`, not under `/ab`); every path is under `/`.
pub fn is_under(path: &[u8], dir: &[u8]) -> bool {
    let dir = if dir.len() > 1 && dir.ends_with(b"/") {
        &dir[..dir.len() - 1]
    } else {
        dir
    };
    if dir == b"/" {
        return path.starts_with(b"/");
    }
    path.starts_with(dir) && (path.len() == dir.len() || path[dir.len()] == b'/')
}

impl fmt::Debug for PathBytes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.to_string_lossy(), f)
    }
}

impl fmt::Display for PathBytes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_string_lossy())
    }
}

impl From<&str> for PathBytes {
    fn from(s: &str) -> Self {
        PathBytes(s.as_bytes().to_vec())
    }
}

impl From<String> for PathBytes {
    fn from(s: String) -> Self {
        PathBytes(s.into_bytes())
    }
}

impl From<Vec<u8>> for PathBytes {
    fn from(b: Vec<u8>) -> Self {
        PathBytes(b)
    }
}

impl From<&[u8]> for PathBytes {
    fn from(b: &[u8]) -> Self {
        PathBytes(b.to_vec())
    }
}

impl From<&Path> for PathBytes {
    fn from(p: &Path) -> Self {
        PathBytes(p.as_os_str().as_bytes().to_vec())
    }
}

impl From<PathBuf> for PathBytes {
    fn from(p: PathBuf) -> Self {
        PathBytes(p.into_os_string().into_vec())
    }
}

impl From<OsString> for PathBytes {
    fn from(p: OsString) -> Self {
        PathBytes(p.into_vec())
    }
}

impl Serialize for PathBytes {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match std::str::from_utf8(&self.0) {
            Ok(text) => s.serialize_str(text),
            Err(_) => {
                use serde::ser::SerializeMap;
                let mut m = s.serialize_map(Some(1))?;
                m.serialize_entry(
                    "bytes",
                    &base64::engine::general_purpose::STANDARD.encode(&self.0),
                )?;
                m.end()
            }
        }
    }
}

impl<'de> Deserialize<'de> for PathBytes {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = PathBytes;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a path string or {\"bytes\": base64}")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<PathBytes, E> {
                Ok(PathBytes::from(v))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<PathBytes, A::Error> {
                let mut out = None;
                while let Some(key) = map.next_key::<String>()? {
                    if key == "bytes" {
                        let b64: String = map.next_value()?;
                        let bytes = base64::engine::general_purpose::STANDARD
                            .decode(b64.as_bytes())
                            .map_err(|e| de::Error::custom(format!("bad base64: {e}")))?;
                        out = Some(PathBytes(bytes));
                    } else {
                        return Err(de::Error::unknown_field(&key, &["bytes"]));
                    }
                }
                out.ok_or_else(|| de::Error::missing_field("bytes"))
            }
        }
        d.deserialize_any(V)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utf8_is_a_string_and_other_bytes_are_base64() {
        assert_eq!(serde_json::to_string(&PathBytes::from("/a b")).unwrap(), "\"/a b\"");
        let odd = PathBytes::from(vec![b'/', 0xff, 0xfe]);
        let json = serde_json::to_string(&odd).unwrap();
        assert_eq!(json, r#"{"bytes":"L//+"}"#);
        assert_eq!(serde_json::from_str::<PathBytes>(&json).unwrap(), odd);
    }

    #[test]
    fn bad_forms_are_errors() {
        for bad in [r#"{"bytes":"!!"}"#, r#"{"other":"x"}"#, "{}", "3"] {
            assert!(serde_json::from_str::<PathBytes>(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn starts_with_dir_respects_components() {
        let p = PathBytes::from("/home/u/project/src/a.rs");
        assert!(p.starts_with_dir(b"/home/u/project"));
        assert!(p.starts_with_dir(b"/home/u/project/"));
        assert!(p.starts_with_dir(b"/"));
        assert!(!p.starts_with_dir(b"/home/u/proj"));
        assert!(PathBytes::from("/home/u/project").starts_with_dir(b"/home/u/project"));
    }
}
