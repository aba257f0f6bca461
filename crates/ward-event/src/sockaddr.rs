//! Socket addresses, decoded from the raw `struct sockaddr` bytes a process passed to the kernel.
//!
//! The decoder is pure and total: any byte string yields an address or a [`SockAddr::Invalid`],
//! never a panic (it is fuzzed, see `fuzz/`).

use crate::PathBytes;
use serde::{Deserialize, Serialize};
use std::fmt;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};

const AF_UNIX: u16 = 1;
const AF_INET: u16 = 2;
const AF_INET6: u16 = 10;
const AF_NETLINK: u16 = 16;

/// A socket address as ward records it.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "family", rename_all = "kebab-case")]
pub enum SockAddr {
    /// IPv4.
    Inet {
        /// Address.
        ip: Ipv4Addr,
        /// Port.
        port: u16,
    },
    /// IPv6.
    Inet6 {
        /// Address.
        ip: Ipv6Addr,
        /// Port.
        port: u16,
        /// Scope id (interface), 0 when unset.
        #[serde(default, skip_serializing_if = "is_zero")]
        scope_id: u32,
    },
    /// Unix socket bound to a filesystem path.
    Unix {
        /// The path (relative paths are resolved by the caller against the process's cwd).
        path: PathBytes,
    },
    /// Unix socket in the abstract namespace (leading NUL dropped).
    UnixAbstract {
        /// The name.
        name: PathBytes,
    },
    /// Unnamed unix socket (autobind, or an address of length `sizeof(sa_family_t)`).
    UnixUnnamed,
    /// Netlink.
    Netlink {
        /// Port id.
        pid: u32,
        /// Multicast groups.
        groups: u32,
    },
    /// Another family ward does not decode.
    Other {
        /// `sa_family`.
        af: u16,
    },
    /// Too short or otherwise malformed for its family.
    Invalid {
        /// Why.
        reason: String,
    },
}

fn is_zero(v: &u32) -> bool {
    *v == 0
}

impl SockAddr {
    /// Decodes `len` bytes of a `struct sockaddr` as the kernel would read them.
    pub fn decode(raw: &[u8]) -> SockAddr {
        if raw.len() < 2 {
            return SockAddr::Invalid {
                reason: format!("address of {} bytes", raw.len()),
            };
        }
        let family = u16::from_ne_bytes([raw[0], raw[1]]);
        match family {
            AF_INET => {
                if raw.len() < 8 {
                    return SockAddr::Invalid {
                        reason: "short sockaddr_in".into(),
                    };
                }
                let port = u16::from_be_bytes([raw[2], raw[3]]);
                let ip = Ipv4Addr::new(raw[4], raw[5], raw[6], raw[7]);
                SockAddr::Inet { ip, port }
            }
            AF_INET6 => {
                if raw.len() < 24 {
                    return SockAddr::Invalid {
                        reason: "short sockaddr_in6".into(),
                    };
                }
                let port = u16::from_be_bytes([raw[2], raw[3]]);
                let mut octets = [0u8; 16];
                octets.copy_from_slice(&raw[8..24]);
                let scope_id = if raw.len() >= 28 {
                    u32::from_ne_bytes([raw[24], raw[25], raw[26], raw[27]])
                } else {
                    0
                };
                SockAddr::Inet6 {
                    ip: Ipv6Addr::from(octets),
                    port,
                    scope_id,
                }
            }
            AF_UNIX => {
                let path = &raw[2..raw.len().min(110)];
                if path.is_empty() {
                    SockAddr::UnixUnnamed
                } else if path[0] == 0 {
                    // Abstract names are length-delimited and may contain NULs.
                    SockAddr::UnixAbstract {
                        name: PathBytes::from(&path[1..]),
                    }
                } else {
                    let end = path.iter().position(|&b| b == 0).unwrap_or(path.len());
                    SockAddr::Unix {
                        path: PathBytes::from(&path[..end]),
                    }
                }
            }
            AF_NETLINK => {
                if raw.len() < 12 {
                    return SockAddr::Invalid {
                        reason: "short sockaddr_nl".into(),
                    };
                }
                SockAddr::Netlink {
                    pid: u32::from_ne_bytes([raw[4], raw[5], raw[6], raw[7]]),
                    groups: u32::from_ne_bytes([raw[8], raw[9], raw[10], raw[11]]),
                }
            }
            af => SockAddr::Other { af },
        }
    }

    /// The IP endpoint, for inet and inet6 addresses (v4-mapped v6 addresses become v4).
    pub fn socket_addr(&self) -> Option<SocketAddr> {
        match self {
            SockAddr::Inet { ip, port } => Some(SocketAddr::new(IpAddr::V4(*ip), *port)),
            SockAddr::Inet6 { ip, port, .. } => {
                let ip = match ip.to_ipv4_mapped() {
                    Some(v4) => IpAddr::V4(v4),
                    None => IpAddr::V6(*ip),
                };
                Some(SocketAddr::new(ip, *port))
            }
            _ => None,
        }
    }

    /// Whether this is an IP address on loopback.
    pub fn is_loopback(&self) -> bool {
        self.socket_addr().is_some_and(|a| a.ip().is_loopback())
    }

    /// Whether this is a unix-domain address of any kind.
    pub fn is_unix(&self) -> bool {
        matches!(
            self,
            SockAddr::Unix { .. } | SockAddr::UnixAbstract { .. } | SockAddr::UnixUnnamed
        )
    }
}

impl fmt::Display for SockAddr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SockAddr::Inet { ip, port } => write!(f, "{ip}:{port}"),
            SockAddr::Inet6 { ip, port, .. } => write!(f, "[{ip}]:{port}"),
            SockAddr::Unix { path } => write!(f, "unix:{path}"),
            SockAddr::UnixAbstract { name } => write!(f, "unix:@{name}"),
            SockAddr::UnixUnnamed => f.write_str("unix:(unnamed)"),
            SockAddr::Netlink { pid, groups } => write!(f, "netlink:{pid}/{groups:#x}"),
            SockAddr::Other { af } => write!(f, "af{af}"),
            SockAddr::Invalid { reason } => write!(f, "invalid({reason})"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn inet(ip: [u8; 4], port: u16) -> Vec<u8> {
        let mut v = AF_INET.to_ne_bytes().to_vec();
        v.extend_from_slice(&port.to_be_bytes());
        v.extend_from_slice(&ip);
        v.extend_from_slice(&[0; 8]);
        v
    }

    #[test]
    fn decodes_inet() {
        assert_eq!(
            SockAddr::decode(&inet([127, 0, 0, 1], 8080)).to_string(),
            "127.0.0.1:8080"
        );
    }

    #[test]
    fn decodes_inet6_and_maps_v4() {
        let mut v = AF_INET6.to_ne_bytes().to_vec();
        v.extend_from_slice(&443u16.to_be_bytes());
        v.extend_from_slice(&[0; 4]);
        v.extend_from_slice(&Ipv6Addr::LOCALHOST.octets());
        v.extend_from_slice(&[0; 4]);
        let a = SockAddr::decode(&v);
        assert_eq!(a.to_string(), "[::1]:443");
        assert!(a.is_loopback());
        let mut m = AF_INET6.to_ne_bytes().to_vec();
        m.extend_from_slice(&53u16.to_be_bytes());
        m.extend_from_slice(&[0; 4]);
        m.extend_from_slice(&Ipv4Addr::new(10, 0, 0, 1).to_ipv6_mapped().octets());
        assert_eq!(
            SockAddr::decode(&m).socket_addr().unwrap().to_string(),
            "10.0.0.1:53"
        );
    }

    #[test]
    fn decodes_unix_path_abstract_and_unnamed() {
        let mut p = AF_UNIX.to_ne_bytes().to_vec();
        p.extend_from_slice(b"/run/docker.sock\0garbage");
        assert_eq!(SockAddr::decode(&p).to_string(), "unix:/run/docker.sock");
        let mut a = AF_UNIX.to_ne_bytes().to_vec();
        a.extend_from_slice(b"\0/tmp/.X11-unix/X0");
        assert_eq!(SockAddr::decode(&a).to_string(), "unix:@/tmp/.X11-unix/X0");
        assert_eq!(
            SockAddr::decode(&AF_UNIX.to_ne_bytes()),
            SockAddr::UnixUnnamed
        );
    }

    #[test]
    fn short_input_is_invalid_not_a_panic() {
        for len in 0..8 {
            let v = inet([1, 2, 3, 4], 5);
            let _ = SockAddr::decode(&v[..len]);
        }
        assert!(matches!(SockAddr::decode(&[2]), SockAddr::Invalid { .. }));
        assert!(matches!(
            SockAddr::decode(&AF_INET6.to_ne_bytes()),
            SockAddr::Invalid { .. }
        ));
    }

    #[test]
    fn json_is_tagged_by_family() {
        let a = SockAddr::decode(&inet([1, 2, 3, 4], 53));
        assert_eq!(
            serde_json::to_string(&a).unwrap(),
            r#"{"family":"inet","ip":"1.2.3.4","port":53}"#
        );
    }
}
