//! NTLM authentication as curl does it (lib/vauth/ntlm.c, lib/curl_ntlm_core.c): the fixed
//! type-1 message, the type-2 parser (challenge, flags, target info) and the type-3 answer
//! with LM + NTLM (v1) responses, or LMv2 + NTLMv2 (with the target info, if any) when the
//! server offers the NTLM2 key flag, as curl 8.14.1 decides.
//! Strings are widened byte by byte to UTF-16LE, as curl does. Sans-IO: the caller gives the
//! random client nonce and the time.

use des::cipher::{BlockEncrypt, KeyInit};
use des::Des;
use hmac::{Hmac, Mac};
use md4::{Digest as _, Md4};
use md5::Md5;

const SIGNATURE: &[u8; 8] = b"NTLMSSP\0";
const FLAG_NEGOTIATE_UNICODE: u32 = 1 << 0;
const FLAG_NEGOTIATE_TARGET_INFO: u32 = 1 << 23;
/// curl's type-1 flags: OEM, request target, NTLM key, NTLM2 session key, always sign.
const TYPE1_FLAGS: u32 = 0x0008_8206;
const FLAG_NEGOTIATE_NTLM2_KEY: u32 = 1 << 19;
/// The workstation name curl sends.
const WORKSTATION: &[u8] = b"WORKSTATION";

/// Where the handshake is, per connection (curl's `curlntlm`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum State {
    #[default]
    None,
    Type1,
    Type2,
    Type3,
    Last,
}

/// Why a challenge header was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NtlmError {
    /// A bare `NTLM` after our type-3: the credentials are wrong.
    Rejected,
    /// A bare `NTLM` in the middle of a handshake.
    Internal,
    /// The type-2 message is not one.
    BadType2,
}

#[derive(Clone, Debug, Default)]
pub struct Ntlm {
    pub state: State,
    flags: u32,
    challenge: [u8; 8],
    target_info: Vec<u8>,
}

/// The type-1 message curl sends, base64-encoded.
pub fn type1() -> String {
    let mut m = Vec::with_capacity(32);
    m.extend_from_slice(SIGNATURE);
    m.extend_from_slice(&1u32.to_le_bytes());
    m.extend_from_slice(&TYPE1_FLAGS.to_le_bytes());
    m.extend_from_slice(&[0u8; 16]);
    crate::codec::base64(&m)
}

fn widen(s: &[u8]) -> Vec<u8> {
    s.iter().flat_map(|&b| [b, 0]).collect()
}

fn nt_hash(password: &[u8]) -> [u8; 16] {
    Md4::digest(widen(password)).into()
}

fn lm_hash(password: &[u8]) -> [u8; 16] {
    let mut pw = [0u8; 14];
    for (d, s) in pw.iter_mut().zip(password) {
        *d = s.to_ascii_uppercase();
    }
    let mut out = [0u8; 16];
    out[..8].copy_from_slice(&des56(&pw[..7], b"KGS!@#$%"));
    out[8..].copy_from_slice(&des56(&pw[7..], b"KGS!@#$%"));
    out
}

/// DES-encrypt one block with a 56-bit key spread over 8 bytes (parity bits unused).
fn des56(key7: &[u8], block: &[u8; 8]) -> [u8; 8] {
    let k = key7;
    let key = [
        k[0],
        (k[0] << 7) | (k[1] >> 1),
        (k[1] << 6) | (k[2] >> 2),
        (k[2] << 5) | (k[3] >> 3),
        (k[3] << 4) | (k[4] >> 4),
        (k[4] << 3) | (k[5] >> 5),
        (k[5] << 2) | (k[6] >> 6),
        k[6] << 1,
    ];
    let cipher = Des::new_from_slice(&key).expect("8-byte key");
    let mut b = (*block).into();
    cipher.encrypt_block(&mut b);
    b.into()
}

/// The 24-byte LM/NTLM v1 response: the 16-byte hash padded to 21 bytes, three DES keys.
fn v1_response(hash: &[u8; 16], challenge: &[u8; 8]) -> [u8; 24] {
    let mut keys = [0u8; 21];
    keys[..16].copy_from_slice(hash);
    let mut out = [0u8; 24];
    for i in 0..3 {
        out[i * 8..i * 8 + 8].copy_from_slice(&des56(&keys[i * 7..i * 7 + 7], challenge));
    }
    out
}

fn hmac_md5(key: &[u8], parts: &[&[u8]]) -> [u8; 16] {
    let mut m = <Hmac<Md5> as Mac>::new_from_slice(key).expect("any key length");
    for p in parts {
        m.update(p);
    }
    m.finalize().into_bytes().into()
}

fn read16(b: &[u8], at: usize) -> usize {
    u16::from_le_bytes([b[at], b[at + 1]]) as usize
}

fn read32(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}

impl Ntlm {
    /// Read the text after `NTLM` in a `WWW-Authenticate` value (leading blanks skipped).
    pub fn input(&mut self, rest: &[u8]) -> Result<(), NtlmError> {
        if rest.is_empty() {
            match self.state {
                State::Last => *self = Ntlm::default(),
                State::Type3 => {
                    *self = Ntlm::default();
                    return Err(NtlmError::Rejected);
                }
                State::Type1 | State::Type2 => return Err(NtlmError::Internal),
                State::None => {}
            }
            self.state = State::Type1;
            return Ok(());
        }
        let msg = crate::codec::base64_decode(std::str::from_utf8(rest).unwrap_or(""))
            .filter(|m| !m.is_empty())
            .ok_or(NtlmError::BadType2)?;
        if msg.len() < 32 || &msg[..8] != SIGNATURE || msg[8..12] != [2, 0, 0, 0] {
            return Err(NtlmError::BadType2);
        }
        self.flags = read32(&msg, 20);
        self.challenge.copy_from_slice(&msg[24..32]);
        self.target_info.clear();
        if self.flags & FLAG_NEGOTIATE_TARGET_INFO != 0 && msg.len() >= 48 {
            let len = read16(&msg, 40);
            let off = read32(&msg, 44) as usize;
            if len > 0 {
                if off < 48 || off > msg.len() || off + len > msg.len() {
                    return Err(NtlmError::BadType2);
                }
                self.target_info = msg[off..off + len].to_vec();
            }
        }
        self.state = State::Type2;
        Ok(())
    }

    /// The type-3 message for `user` (`DOMAIN\user` or `DOMAIN/user`), base64-encoded.
    /// `entropy` is the client nonce and `filetime` the time in 100 ns units since 1601,
    /// both used only for NTLMv2.
    pub fn type3(&mut self, user: &str, password: &str, entropy: [u8; 8], filetime: u64) -> String {
        let userp = user.as_bytes();
        let (domain, user) = match userp.iter().position(|&c| c == b'\\' || c == b'/') {
            Some(i) => (&userp[..i], &userp[i + 1..]),
            None => (&b""[..], userp),
        };
        let nt = nt_hash(password.as_bytes());
        let (lm_resp, nt_resp): (Vec<u8>, Vec<u8>) = if self.flags & FLAG_NEGOTIATE_NTLM2_KEY != 0 {
            let mut ident = user.to_ascii_uppercase();
            ident.extend_from_slice(domain);
            let v2hash = hmac_md5(&nt, &[&widen(&ident)]);
            let mut lm = hmac_md5(&v2hash, &[&self.challenge, &entropy]).to_vec();
            lm.extend_from_slice(&entropy);
            let mut blob = Vec::with_capacity(32 + self.target_info.len());
            blob.extend_from_slice(&[1, 1, 0, 0, 0, 0, 0, 0]);
            blob.extend_from_slice(&filetime.to_le_bytes());
            blob.extend_from_slice(&entropy);
            blob.extend_from_slice(&[0; 4]);
            blob.extend_from_slice(&self.target_info);
            blob.extend_from_slice(&[0; 4]);
            let mut ntr = hmac_md5(&v2hash, &[&self.challenge, &blob]).to_vec();
            ntr.extend_from_slice(&blob);
            (lm, ntr)
        } else {
            (
                v1_response(&lm_hash(password.as_bytes()), &self.challenge).to_vec(),
                v1_response(&nt, &self.challenge).to_vec(),
            )
        };
        let unicode = self.flags & FLAG_NEGOTIATE_UNICODE != 0;
        let enc = |s: &[u8]| if unicode { widen(s) } else { s.to_vec() };
        let (domain, user, host) = (enc(domain), enc(user), enc(WORKSTATION));

        let lm_off = 64;
        let nt_off = lm_off + lm_resp.len();
        let dom_off = nt_off + nt_resp.len();
        let user_off = dom_off + domain.len();
        let host_off = user_off + user.len();
        let mut m = Vec::with_capacity(host_off + host.len());
        m.extend_from_slice(SIGNATURE);
        m.extend_from_slice(&3u32.to_le_bytes());
        for (len, off) in [
            (lm_resp.len(), lm_off),
            (nt_resp.len(), nt_off),
            (domain.len(), dom_off),
            (user.len(), user_off),
            (host.len(), host_off),
            (0, 0),
        ] {
            m.extend_from_slice(&(len as u16).to_le_bytes());
            m.extend_from_slice(&(len as u16).to_le_bytes());
            m.extend_from_slice(&(off as u32).to_le_bytes());
        }
        m.extend_from_slice(&self.flags.to_le_bytes());
        m.extend_from_slice(&lm_resp);
        m.extend_from_slice(&nt_resp);
        m.extend_from_slice(&domain);
        m.extend_from_slice(&user);
        m.extend_from_slice(&host);
        self.state = State::Type3;
        crate::codec::base64(&m)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TYPE2: &[u8] = b"TlRMTVNTUAACAAAAAgACADAAAACGggEAc51BlZCA7ZcAAAAAAAAAAG4AbgAyAAAAQ0MCAAQAQwBDAAEAEgBFAEwASQBTAEEAQgBFAFQASAAEABgAYwBjAC4AaQBjAGUAZABlAHYALgBuAHUAAwAsAGUAbABpAHMAYQBiAGUAdABoAC4AYwBjAC4AaQBjAGUAZABlAHYALgBuAHUAAAAAAA==";

    #[test]
    fn type1_is_curls() {
        assert_eq!(type1(), "TlRMTVNTUAABAAAABoIIAAAAAAAAAAAAAAAAAAAAAAA=");
    }

    #[test]
    fn v1_type3_matches_reference() {
        // Recorded from curl 8.14.1 with -u 'dom\user:pass' against this type-2.
        let mut n = Ntlm::default();
        n.input(TYPE2).unwrap();
        assert_eq!(
            n.type3("dom\\user", "pass", [0; 8], 0),
            "TlRMTVNTUAADAAAAGAAYAEAAAAAYABgAWAAAAAMAAwBwAAAABAAEAHMAAAALAAsAdwAAAAAAAAAAAAAAhoIBAIBEEzzbWrkhqcvxnBmM1a2EiQMuB0S793f8HNncOqIDhW3PX1nO1e+Cm8L4eYxvx2RvbXVzZXJXT1JLU1RBVElPTg=="
        );
        assert_eq!(n.state, State::Type3);
    }

    #[test]
    fn ntlmv2_known_answer() {
        // MS-NLMP 4.2.4: user "User", domain "Domain", password "Password".
        let nt = nt_hash(b"Password");
        assert_eq!(
            nt,
            [
                0xa4, 0xf4, 0x9c, 0x40, 0x65, 0x10, 0xbd, 0xca, 0xb6, 0x82, 0x4e, 0xe7, 0xc3, 0x0f,
                0xd8, 0x52
            ]
        );
        let mut ident = b"User".to_ascii_uppercase();
        ident.extend_from_slice(b"Domain");
        let v2 = hmac_md5(&nt, &[&widen(&ident)]);
        assert_eq!(
            v2,
            [
                0x0c, 0x86, 0x8a, 0x40, 0x3b, 0xfd, 0x7a, 0x93, 0xa3, 0x00, 0x1e, 0xf2, 0x2e, 0xf0,
                0x2e, 0x3f
            ]
        );
    }

    #[test]
    fn bare_ntlm_states() {
        let mut n = Ntlm::default();
        assert_eq!(n.input(b""), Ok(()));
        assert_eq!(n.state, State::Type1);
        assert_eq!(n.input(b""), Err(NtlmError::Internal));
        let mut n = Ntlm {
            state: State::Type3,
            ..Ntlm::default()
        };
        assert_eq!(n.input(b""), Err(NtlmError::Rejected));
        assert_eq!(n.input(b"!!!"), Err(NtlmError::BadType2));
        assert_eq!(n.input(b"TlRMTVNTUAABAAAA"), Err(NtlmError::BadType2));
    }
}
