//! The TLS record layer after the handshake, done in user space as kTLS does it in the
//! kernel. rustls makes the handshake and then hands over the traffic secrets and a
//! `KernelConnection` (`dangerous_into_kernel_connection`); from there records are parsed in
//! the connection's receive buffer and decrypted in place with the negotiated suite's own
//! AEAD (the crypto provider's `MessageDecrypter`), so application data goes from the
//! socket's bytes to the caller's buffer with no buffer of its own per record. rustls'
//! buffered and unbuffered connections both copy every decrypted record into a new `Vec`.
//!
//! rustls keeps the key schedule: session tickets (resumption) and key updates go to the
//! `KernelConnection` ([`KeySchedule`]). Everything else rustls would do after the handshake
//! is done here the way rustls 0.23 does it, with its error values, so failures read the same:
//! header checks, alerts (close_notify is the end of the data; warnings are ignored in TLS 1.2
//! and fatal in 1.3 but for user_canceled), TLS 1.2 renegotiation requests refused with a
//! no_renegotiation warning, handshake messages joined across records, limits on empty
//! records, warnings and key updates, the fatal alert sent for each failure, sequence numbers
//! and the suite's confidentiality limit (TLS 1.3 updates its keys; TLS 1.2 refuses).

use std::fmt;
use std::io;
use std::ops::Range;

use rustls::client::ClientConnectionData;
use rustls::crypto::cipher::{
    AeadKey, InboundOpaqueMessage, Iv, MessageDecrypter, MessageEncrypter, OutboundChunks,
    OutboundPlainMessage,
};
use rustls::kernel::KernelConnection;
use rustls::{
    AlertDescription, ConnectionTrafficSecrets, ContentType, Error, HandshakeType, InvalidMessage,
    PeerMisbehaved, ProtocolVersion, SupportedCipherSuite,
};

/// Content type, version and length.
pub const HEADER_LEN: usize = 5;
/// Largest record payload accepted: 2^14 bytes and 2 KiB for the cipher's overhead (rustls'
/// limit; a length of this or more is refused).
const MAX_PAYLOAD: usize = 16_384 + 2048;
/// Largest record on the wire.
pub const MAX_WIRE: usize = HEADER_LEN + MAX_PAYLOAD;
/// Largest plaintext in a record we send.
pub const MAX_FRAGMENT: usize = 16_384;
/// The receive buffer: room for a record being completed while a whole one is read behind it.
pub const RX_CAPACITY: usize = 2 * MAX_WIRE;
/// Plaintext taken by one [`Records::send`].
const SEND_MAX: usize = 4 * MAX_FRAGMENT;
/// rustls' soft sequence-number limit: close before the counter can wrap.
const SEQ_SOFT_LIMIT: u64 = 0xffff_ffff_ffff_0000;
/// Largest handshake message accepted after the handshake.
const MAX_HANDSHAKE: usize = 0xffff;
/// rustls' limits on what a peer may send without application data in between.
const EMPTY_RECORDS_MAX: u8 = 32;
const KEY_UPDATES_MAX: u8 = 32;
const WARNINGS_MAX: u8 = 4;

/// A record header.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Header {
    pub typ: ContentType,
    pub version: ProtocolVersion,
    /// Payload length.
    pub len: usize,
}

/// The record header at the front of `buf`, checked as rustls checks it (known content
/// type, a 3.x version, no empty records but application data, no oversized ones): Ok(None)
/// while fewer than five bytes are there.
pub fn parse_header(buf: &[u8]) -> Result<Option<Header>, Error> {
    let Some(&t) = buf.first() else {
        return Ok(None);
    };
    let typ = ContentType::from(t);
    if let ContentType::Unknown(_) = typ {
        return Err(InvalidMessage::InvalidContentType.into());
    }
    if buf.len() < 3 {
        return Ok(None);
    }
    let version = ProtocolVersion::from(u16::from_be_bytes([buf[1], buf[2]]));
    if matches!(version, ProtocolVersion::Unknown(v) if v & 0xff00 != 0x0300) {
        return Err(InvalidMessage::UnknownProtocolVersion.into());
    }
    if buf.len() < HEADER_LEN {
        return Ok(None);
    }
    let len = usize::from(u16::from_be_bytes([buf[3], buf[4]]));
    if typ != ContentType::ApplicationData && len == 0 {
        return Err(InvalidMessage::InvalidEmptyPayload.into());
    }
    if len >= MAX_PAYLOAD {
        return Err(InvalidMessage::MessageTooLarge.into());
    }
    Ok(Some(Header { typ, version, len }))
}

/// Does `buf` start with a whole record (or with bytes that are no record)? After the
/// handshake, rustls' unbuffered connection leaves such bytes in the buffer only while it
/// holds part of a handshake message there, when its state cannot be taken over yet.
pub fn holds_whole_record(buf: &[u8]) -> bool {
    match parse_header(buf) {
        Ok(Some(h)) => buf.len() >= HEADER_LEN + h.len,
        Ok(None) => false,
        Err(_) => true,
    }
}

/// What rustls' `KernelConnection` does for the record layer: the key schedule.
pub trait KeySchedule {
    /// A TLS 1.3 NewSessionTicket message's body.
    fn session_ticket(&mut self, payload: &[u8]) -> Result<(), Error>;
    /// The peer's next traffic secret (after its KeyUpdate) and the sequence number to start at.
    fn next_rx(&mut self) -> Result<(u64, ConnectionTrafficSecrets), Error>;
    /// Our next traffic secret (after our KeyUpdate).
    fn next_tx(&mut self) -> Result<(u64, ConnectionTrafficSecrets), Error>;
}

impl KeySchedule for KernelConnection<ClientConnectionData> {
    fn session_ticket(&mut self, payload: &[u8]) -> Result<(), Error> {
        self.handle_new_session_ticket(payload)
    }
    fn next_rx(&mut self) -> Result<(u64, ConnectionTrafficSecrets), Error> {
        self.update_rx_secret()
    }
    fn next_tx(&mut self) -> Result<(u64, ConnectionTrafficSecrets), Error> {
        self.update_tx_secret()
    }
}

fn key_iv(s: ConnectionTrafficSecrets) -> Result<(AeadKey, Iv), Error> {
    match s {
        ConnectionTrafficSecrets::Aes128Gcm { key, iv }
        | ConnectionTrafficSecrets::Aes256Gcm { key, iv }
        | ConnectionTrafficSecrets::Chacha20Poly1305 { key, iv } => Ok((key, iv)),
        _ => Err(Error::General(
            "no in-place record layer for this cipher".into(),
        )),
    }
}

/// The suite's decrypter for a traffic secret. TLS 1.2 suites take the fixed part of the IV
/// (the salt for GCM, whose explicit nonce comes with each record).
pub fn decrypter(
    suite: SupportedCipherSuite,
    s: ConnectionTrafficSecrets,
) -> Result<Box<dyn MessageDecrypter>, Error> {
    let (key, iv) = key_iv(s)?;
    Ok(match suite {
        SupportedCipherSuite::Tls13(s) => s.aead_alg.decrypter(key, iv),
        SupportedCipherSuite::Tls12(s) => {
            let fixed = s.aead_alg.key_block_shape().fixed_iv_len;
            s.aead_alg.decrypter(key, &iv.as_ref()[..fixed])
        }
    })
}

/// The suite's encrypter for a traffic secret. For TLS 1.2 the IV rustls extracts is the
/// fixed part followed by the explicit-nonce offset the encrypter counts from.
pub fn encrypter(
    suite: SupportedCipherSuite,
    s: ConnectionTrafficSecrets,
) -> Result<Box<dyn MessageEncrypter>, Error> {
    let (key, iv) = key_iv(s)?;
    Ok(match suite {
        SupportedCipherSuite::Tls13(s) => s.aead_alg.encrypter(key, iv),
        SupportedCipherSuite::Tls12(s) => {
            let shape = s.aead_alg.key_block_shape();
            let iv = iv.as_ref();
            let fixed = shape.fixed_iv_len;
            s.aead_alg.encrypter(
                key,
                &iv[..fixed],
                &iv[fixed..fixed + shape.explicit_nonce_len],
            )
        }
    })
}

/// Records one key may encrypt before the suite's security bound is at risk.
fn confidentiality_limit(suite: SupportedCipherSuite) -> u64 {
    match suite {
        SupportedCipherSuite::Tls13(s) => s.common.confidentiality_limit,
        SupportedCipherSuite::Tls12(s) => s.common.confidentiality_limit,
    }
}

/// Why a receive failed.
#[derive(Debug)]
pub enum Failure {
    /// The transport's error (WouldBlock: nothing more yet).
    Io(io::Error),
    /// A TLS failure, as rustls reports it.
    Tls(Error),
    /// The transport ended without the peer's close_notify.
    Truncated,
}

/// A TLS failure and the fatal alert it makes us send.
struct Fatal {
    err: Error,
    alert: Option<AlertDescription>,
}

impl From<Error> for Fatal {
    /// The alerts rustls sends for these failures.
    fn from(err: Error) -> Fatal {
        let alert = match &err {
            Error::InvalidMessage(m) => Some(AlertDescription::from(*m)),
            Error::PeerSentOversizedRecord => Some(AlertDescription::RecordOverflow),
            Error::DecryptError => Some(AlertDescription::BadRecordMac),
            Error::InappropriateMessage { .. }
            | Error::InappropriateHandshakeMessage { .. }
            | Error::PeerMisbehaved(PeerMisbehaved::IllegalMiddleboxChangeCipherSpec) => {
                Some(AlertDescription::UnexpectedMessage)
            }
            _ => None,
        };
        Fatal { err, alert }
    }
}

/// One connection's record layer after the handshake.
pub struct Records<K> {
    keys: K,
    suite: SupportedCipherSuite,
    tls13: bool,
    dec: Box<dyn MessageDecrypter>,
    rx_seq: u64,
    enc: Box<dyn MessageEncrypter>,
    tx_seq: u64,
    /// Records one key may encrypt: the suite's confidentiality limit.
    tx_limit: u64,
    /// Received bytes: `rx[start..end]` not yet taken apart.
    rx: Vec<u8>,
    start: usize,
    end: usize,
    /// Decrypted application data in `rx` not yet handed out.
    plain: Range<usize>,
    /// Application data that arrived with the end of the handshake.
    early: Vec<u8>,
    early_pos: usize,
    /// Part of a handshake message (messages may span records).
    hs: Vec<u8>,
    /// Records to send: `tx[tx_pos..]`.
    tx: Vec<u8>,
    tx_pos: usize,
    peer_closed: bool,
    eof: bool,
    /// The last read from the transport gave less than there was room for: it had no more
    /// at that moment.
    short_read: bool,
    /// We sent close_notify or a fatal alert: no more alerts.
    sent_close: bool,
    failed: Option<Error>,
    empty_run: u8,
    warnings_left: u8,
    renegotiations_left: u8,
    key_updates_left: u8,
}

impl<K> fmt::Debug for Records<K> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Records")
            .field("suite", &self.suite)
            .field("rx_seq", &self.rx_seq)
            .field("tx_seq", &self.tx_seq)
            .finish()
    }
}

impl<K: KeySchedule> Records<K> {
    /// Take over a connection whose handshake is done. `rx[start..end]` holds what was
    /// received after the handshake (at most part of a record); `early` application data
    /// that came with the handshake.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        keys: K,
        suite: SupportedCipherSuite,
        rx_secret: (u64, ConnectionTrafficSecrets),
        tx_secret: (u64, ConnectionTrafficSecrets),
        mut rx: Vec<u8>,
        start: usize,
        end: usize,
        early: Vec<u8>,
    ) -> Result<Records<K>, Error> {
        if rx.len() < RX_CAPACITY {
            rx.resize(RX_CAPACITY, 0);
        }
        let tls13 = matches!(suite, SupportedCipherSuite::Tls13(_));
        let mut enc = encrypter(suite, tx_secret.1)?;
        if tx_secret.0 > 0 {
            // aws-lc's GCM sealing keys take the first nonce they see as the start of a
            // counter that must only grow. rustls' own encrypter for these keys started at
            // sequence number 0 (TLS 1.2: the Finished message), so show ours that number
            // first, and drop what it made: that record is never sent.
            enc.encrypt(
                OutboundPlainMessage {
                    typ: ContentType::ApplicationData,
                    version: ProtocolVersion::TLSv1_2,
                    payload: OutboundChunks::Single(&[]),
                },
                0,
            )?;
        }
        Ok(Records {
            dec: decrypter(suite, rx_secret.1)?,
            rx_seq: rx_secret.0,
            enc,
            tx_seq: tx_secret.0,
            tx_limit: confidentiality_limit(suite).min(SEQ_SOFT_LIMIT),
            keys,
            suite,
            tls13,
            rx,
            start,
            end,
            plain: 0..0,
            early,
            early_pos: 0,
            hs: Vec::new(),
            tx: Vec::new(),
            tx_pos: 0,
            peer_closed: false,
            eof: false,
            short_read: false,
            sent_close: false,
            failed: None,
            empty_run: 0,
            warnings_left: WARNINGS_MAX,
            renegotiations_left: 1,
            key_updates_left: KEY_UPDATES_MAX,
        })
    }

    /// The key schedule (rustls' `KernelConnection`).
    pub fn keys(&self) -> &K {
        &self.keys
    }

    /// Decrypted bytes into `buf`; Ok(0) after the peer's close_notify.
    pub fn recv<T: io::Read + io::Write>(
        &mut self,
        io: &mut T,
        buf: &mut [u8],
    ) -> Result<usize, Failure> {
        if buf.is_empty() {
            return Ok(0);
        }
        loop {
            if self.early_pos < self.early.len() {
                let src = &self.early[self.early_pos..];
                let n = src.len().min(buf.len());
                buf[..n].copy_from_slice(&src[..n]);
                self.early_pos += n;
                if self.early_pos == self.early.len() {
                    self.early = Vec::new();
                    self.early_pos = 0;
                }
                return Ok(n);
            }
            if !self.plain.is_empty() {
                let n = self.plain.len().min(buf.len());
                buf[..n].copy_from_slice(&self.rx[self.plain.start..self.plain.start + n]);
                self.plain.start += n;
                return Ok(n);
            }
            if let Some(e) = &self.failed {
                return Err(Failure::Tls(e.clone()));
            }
            if self.peer_closed {
                return Ok(0);
            }
            match self.next_record() {
                Ok(true) => {
                    self.flush_some(io);
                    continue;
                }
                Ok(false) => {}
                Err(f) => return Err(Failure::Tls(self.fail(io, f))),
            }
            if self.eof {
                return Err(Failure::Truncated);
            }
            self.make_room();
            let room = self.rx.len() - self.end;
            match io.read(&mut self.rx[self.end..]) {
                Ok(0) => self.eof = true,
                Ok(n) => {
                    self.end += n;
                    self.short_read = n < room;
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(Failure::Io(e)),
            }
        }
    }

    /// Nothing to hand out without reading the transport, and the last read drained it:
    /// a reader may wait for the socket to be readable instead of reading to hear
    /// WouldBlock. False at the end of the stream (the next `recv` says how it ended).
    pub fn input_drained(&self) -> bool {
        if !self.short_read
            || self.early_pos < self.early.len()
            || !self.plain.is_empty()
            || self.failed.is_some()
            || self.peer_closed
            || self.eof
        {
            return false;
        }
        let avail = &self.rx[self.start..self.end];
        match parse_header(avail) {
            Ok(Some(h)) => avail.len() < HEADER_LEN + h.len,
            Ok(None) => true,
            Err(_) => false,
        }
    }

    /// Encrypt up to 64 KiB of `buf` and send what the transport takes; the rest of the
    /// records wait for [`Records::flush`]. WouldBlock while earlier records are queued.
    pub fn send<T: io::Write>(&mut self, io: &mut T, buf: &[u8]) -> Result<usize, Failure> {
        self.flush(io).map_err(Failure::Io)?;
        if let Some(e) = &self.failed {
            return Err(Failure::Tls(e.clone()));
        }
        let n = buf.len().min(SEND_MAX);
        for chunk in buf[..n].chunks(MAX_FRAGMENT) {
            self.seal(ContentType::ApplicationData, chunk)
                .map_err(Failure::Tls)?;
        }
        match self.flush(io) {
            Ok(()) => {}
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => {}
            Err(e) => return Err(Failure::Io(e)),
        }
        Ok(n)
    }

    /// Write out queued records; WouldBlock while some remain.
    pub fn flush<T: io::Write>(&mut self, io: &mut T) -> io::Result<()> {
        write_queued(io, &mut self.tx, &mut self.tx_pos)
    }

    /// Are records waiting for the transport?
    pub fn wants_write(&self) -> bool {
        self.tx_pos < self.tx.len()
    }

    /// Is an idle connection still usable? Takes the records that arrived meanwhile: session
    /// tickets and key updates are fine; data, a close_notify, an error or the end are not.
    pub fn is_alive<T: io::Read + io::Write>(&mut self, io: &mut T) -> bool {
        loop {
            if self.failed.is_some()
                || self.peer_closed
                || self.eof
                || !self.plain.is_empty()
                || self.early_pos < self.early.len()
            {
                return false;
            }
            match self.next_record() {
                Ok(true) => continue,
                Ok(false) => {}
                Err(f) => {
                    self.fail(io, f);
                    return false;
                }
            }
            self.make_room();
            match io.read(&mut self.rx[self.end..]) {
                Ok(0) => return false,
                Ok(n) => self.end += n,
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => break,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(_) => return false,
            }
        }
        self.flush_some(io);
        true
    }

    /// Queue close_notify (once) and send it if the transport takes it.
    pub fn close<T: io::Write>(&mut self, io: &mut T) {
        if !self.sent_close && self.failed.is_none() {
            self.sent_close = true;
            let _ = self.seal(
                ContentType::Alert,
                &[1, AlertDescription::CloseNotify.into()],
            );
        }
        let _ = self.flush(io);
    }

    /// Send what the transport takes now; the rest waits.
    fn flush_some<T: io::Write>(&mut self, io: &mut T) {
        if self.wants_write() {
            let _ = self.flush(io);
        }
    }

    /// Record a failure: send its alert (best effort) and keep it for later calls.
    fn fail<T: io::Write>(&mut self, io: &mut T, f: Fatal) -> Error {
        if let Some(a) = f.alert {
            if !self.sent_close {
                self.sent_close = true;
                let _ = self.seal(ContentType::Alert, &[2, a.into()]);
            }
        }
        self.flush_some(io);
        self.failed = Some(f.err.clone());
        f.err
    }

    /// Room behind `end` for the rest of the record being received: compact when it would
    /// not fit.
    fn make_room(&mut self) {
        if self.start == self.end {
            self.start = 0;
            self.end = 0;
            return;
        }
        let need = match parse_header(&self.rx[self.start..self.end]) {
            Ok(Some(h)) => HEADER_LEN + h.len,
            _ => MAX_WIRE,
        };
        if self.start + need > self.rx.len() {
            self.rx.copy_within(self.start..self.end, 0);
            self.end -= self.start;
            self.start = 0;
        }
    }

    /// Take the next whole record out of the receive buffer: decrypt it in place and act on
    /// it. Ok(false) when there is none yet.
    fn next_record(&mut self) -> Result<bool, Fatal> {
        let avail = &self.rx[self.start..self.end];
        let Some(h) = parse_header(avail)? else {
            return Ok(false);
        };
        let total = HEADER_LEN + h.len;
        if avail.len() < total {
            return Ok(false);
        }
        let at = self.start;
        self.start += total;
        if h.typ == ContentType::ChangeCipherSpec {
            // Never encrypted, and only part of a handshake.
            return Err(self.inappropriate(h.typ).into());
        }
        if self.rx_seq == SEQ_SOFT_LIMIT && !self.sent_close {
            // As rustls: warn the peer before its counter can wrap.
            self.sent_close = true;
            let _ = self.seal(
                ContentType::Alert,
                &[1, AlertDescription::CloseNotify.into()],
            );
        }
        let rec = &mut self.rx[at..at + total];
        let base = rec.as_ptr() as usize;
        let msg = InboundOpaqueMessage::new(h.typ, h.version, &mut rec[HEADER_LEN..]);
        let plain = self.dec.decrypt(msg, self.rx_seq)?;
        self.rx_seq += 1;
        let typ = plain.typ;
        let from = at + (plain.payload.as_ptr() as usize - base);
        let range = from..from + plain.payload.len();
        if !self.hs.is_empty() && typ != ContentType::Handshake {
            return Err(Error::PeerMisbehaved(
                PeerMisbehaved::MessageInterleavedWithHandshakeMessage,
            )
            .into());
        }
        if range.is_empty() {
            if self.empty_run == EMPTY_RECORDS_MAX {
                return Err(Error::PeerMisbehaved(PeerMisbehaved::TooManyEmptyFragments).into());
            }
            self.empty_run += 1;
        } else {
            self.empty_run = 0;
        }
        match typ {
            ContentType::ApplicationData => {
                self.key_updates_left = KEY_UPDATES_MAX;
                self.plain = range;
            }
            ContentType::Alert => self.alert(range)?,
            ContentType::Handshake => self.handshake(range)?,
            other => return Err(self.inappropriate(other).into()),
        }
        Ok(true)
    }

    fn inappropriate(&self, got: ContentType) -> Error {
        let expect_types = if self.tls13 {
            vec![ContentType::ApplicationData, ContentType::Handshake]
        } else {
            vec![ContentType::ApplicationData]
        };
        Error::InappropriateMessage {
            expect_types,
            got_type: got,
        }
    }

    fn alert(&mut self, r: Range<usize>) -> Result<(), Fatal> {
        let p = &self.rx[r];
        let (level, desc) = match *p {
            [] => return Err(Error::from(InvalidMessage::MissingData("AlertLevel")).into()),
            [_] => return Err(Error::from(InvalidMessage::MissingData("AlertDescription")).into()),
            [l, d] => (l, AlertDescription::from(d)),
            _ => {
                return Err(Error::from(InvalidMessage::TrailingData("AlertMessagePayload")).into())
            }
        };
        if !matches!(level, 1 | 2) {
            return Err(Fatal {
                err: Error::AlertReceived(desc),
                alert: Some(AlertDescription::IllegalParameter),
            });
        }
        if desc == AlertDescription::CloseNotify {
            self.peer_closed = true;
            return Ok(());
        }
        if level == 1 {
            if self.warnings_left == 0 {
                return Err(
                    Error::PeerMisbehaved(PeerMisbehaved::TooManyWarningAlertsReceived).into(),
                );
            }
            self.warnings_left -= 1;
            if self.tls13 && desc != AlertDescription::UserCanceled {
                return Err(Fatal {
                    err: Error::AlertReceived(desc),
                    alert: Some(AlertDescription::DecodeError),
                });
            }
            return Ok(());
        }
        Err(Fatal {
            err: Error::AlertReceived(desc),
            alert: None,
        })
    }

    /// Handshake records: whole messages are acted on, a partial one kept for the next.
    fn handshake(&mut self, r: Range<usize>) -> Result<(), Fatal> {
        if r.is_empty() {
            return Err(Error::from(InvalidMessage::InvalidEmptyPayload).into());
        }
        self.hs.extend_from_slice(&self.rx[r]);
        let mut at = 0;
        let result = loop {
            let rest = &self.hs[at..];
            if rest.len() < 4 {
                break Ok(());
            }
            let typ = HandshakeType::from(rest[0]);
            let len = usize::from(rest[1]) << 16 | usize::from(rest[2]) << 8 | usize::from(rest[3]);
            if len > MAX_HANDSHAKE {
                break Err(Error::from(InvalidMessage::HandshakePayloadTooLarge).into());
            }
            if rest.len() < 4 + len {
                break Ok(());
            }
            let body = at + 4..at + 4 + len;
            at += 4 + len;
            let last = at == self.hs.len();
            if let Err(f) = self.handshake_message(typ, body, last) {
                break Err(f);
            }
        };
        self.hs.drain(..at);
        result
    }

    fn handshake_message(
        &mut self,
        typ: HandshakeType,
        body: Range<usize>,
        last: bool,
    ) -> Result<(), Fatal> {
        if !self.tls13 {
            // TLS 1.2: a renegotiation request is refused with a warning, once.
            if typ == HandshakeType::HelloRequest && body.is_empty() {
                if self.renegotiations_left == 0 {
                    return Err(Error::PeerMisbehaved(
                        PeerMisbehaved::TooManyRenegotiationRequests,
                    )
                    .into());
                }
                self.renegotiations_left -= 1;
                self.seal(
                    ContentType::Alert,
                    &[1, AlertDescription::NoRenegotiation.into()],
                )?;
                return Ok(());
            }
            return Err(self.inappropriate(ContentType::Handshake).into());
        }
        match typ {
            HandshakeType::NewSessionTicket => {
                self.keys.session_ticket(&self.hs[body])?;
                Ok(())
            }
            HandshakeType::KeyUpdate => {
                // A key change must end its record.
                if !last {
                    return Err(Fatal {
                        err: Error::PeerMisbehaved(PeerMisbehaved::KeyEpochWithPendingFragment),
                        alert: Some(AlertDescription::UnexpectedMessage),
                    });
                }
                if self.key_updates_left == 0 {
                    return Err(
                        Error::PeerMisbehaved(PeerMisbehaved::TooManyKeyUpdateRequests).into(),
                    );
                }
                self.key_updates_left -= 1;
                let requested = match self.hs[body] {
                    [0] => false,
                    [1] => true,
                    [] => {
                        return Err(
                            Error::from(InvalidMessage::MissingData("KeyUpdateRequest")).into()
                        )
                    }
                    [_] => {
                        return Err(Fatal {
                            err: InvalidMessage::InvalidKeyUpdate.into(),
                            alert: Some(AlertDescription::IllegalParameter),
                        })
                    }
                    _ => return Err(Error::from(InvalidMessage::TrailingData("KeyUpdate")).into()),
                };
                if requested {
                    // Answer with our own update, sent under the old keys.
                    self.update_tx(false)?;
                }
                let (seq, secret) = self.keys.next_rx()?;
                self.dec = decrypter(self.suite, secret)?;
                self.rx_seq = seq;
                Ok(())
            }
            other => Err(Error::InappropriateHandshakeMessage {
                expect_types: vec![HandshakeType::NewSessionTicket, HandshakeType::KeyUpdate],
                got_type: other,
            }
            .into()),
        }
    }

    /// Send a KeyUpdate and switch to our next keys.
    fn update_tx(&mut self, request: bool) -> Result<(), Error> {
        self.seal_now(
            ContentType::Handshake,
            &[HandshakeType::KeyUpdate.into(), 0, 0, 1, u8::from(request)],
        )?;
        let (seq, secret) = self.keys.next_tx()?;
        self.enc = encrypter(self.suite, secret)?;
        self.tx_seq = seq;
        Ok(())
    }

    /// Queue one record, first changing keys when the current ones have encrypted as many
    /// records as the suite allows (TLS 1.2 cannot, and refuses).
    fn seal(&mut self, typ: ContentType, data: &[u8]) -> Result<(), Error> {
        if self.tx_seq >= self.tx_limit {
            if !self.tls13 {
                return Err(Error::EncryptError);
            }
            self.update_tx(true)?;
        }
        self.seal_now(typ, data)
    }

    fn seal_now(&mut self, typ: ContentType, data: &[u8]) -> Result<(), Error> {
        let m = self.enc.encrypt(
            OutboundPlainMessage {
                typ,
                version: ProtocolVersion::TLSv1_2,
                payload: OutboundChunks::Single(data),
            },
            self.tx_seq,
        )?;
        self.tx_seq += 1;
        let bytes = m.encode();
        if self.tx_pos == self.tx.len() {
            self.tx = bytes;
            self.tx_pos = 0;
        } else {
            self.tx.extend_from_slice(&bytes);
        }
        Ok(())
    }
}

/// A key schedule with made-up secrets, for tests and fuzzing: each update derives the
/// next from a counter, and [`Sealer`] follows the same schedule as the peer.
#[doc(hidden)]
#[derive(Debug, Default)]
pub struct FixedKeys {
    pub rx_updates: u8,
    pub tx_updates: u8,
    pub tickets: Vec<Vec<u8>>,
}

/// The made-up secret of generation `n`, for the suite's AEAD.
#[doc(hidden)]
pub fn fixed_secret(n: u8) -> ConnectionTrafficSecrets {
    ConnectionTrafficSecrets::Aes256Gcm {
        key: AeadKey::from([n.wrapping_add(0x40); 32]),
        iv: Iv::from([n.wrapping_add(0x70); 12]),
    }
}

impl KeySchedule for FixedKeys {
    fn session_ticket(&mut self, payload: &[u8]) -> Result<(), Error> {
        if payload.len() < 9 {
            return Err(InvalidMessage::MissingData("NewSessionTicketPayloadTls13").into());
        }
        self.tickets.push(payload.to_vec());
        Ok(())
    }
    fn next_rx(&mut self) -> Result<(u64, ConnectionTrafficSecrets), Error> {
        self.rx_updates += 1;
        Ok((0, fixed_secret(self.rx_updates)))
    }
    fn next_tx(&mut self) -> Result<(u64, ConnectionTrafficSecrets), Error> {
        self.tx_updates += 1;
        Ok((0, fixed_secret(100 + self.tx_updates)))
    }
}

/// The peer's side for tests and fuzzing: seals records under [`fixed_secret`]s.
#[doc(hidden)]
pub struct Sealer {
    suite: SupportedCipherSuite,
    enc: Box<dyn MessageEncrypter>,
    seq: u64,
    generation: u8,
}

impl Sealer {
    /// A record of content type `typ` (TLS 1.3: the inner type) holding `data`, with `pad`
    /// zero bytes of TLS 1.3 padding.
    pub fn seal(&mut self, typ: u8, data: &[u8], pad: usize) -> Vec<u8> {
        let tls13 = matches!(self.suite, SupportedCipherSuite::Tls13(_));
        let (outer, inner);
        let payload: &[u8] = if tls13 && pad > 0 {
            let mut v = data.to_vec();
            v.push(typ);
            v.resize(v.len() + pad - 1, 0);
            inner = v;
            // The encrypter appends the type byte: a zero, the padding's last byte.
            outer = ContentType::from(0);
            &inner
        } else {
            outer = ContentType::from(typ);
            data
        };
        let m = self
            .enc
            .encrypt(
                OutboundPlainMessage {
                    typ: outer,
                    version: ProtocolVersion::TLSv1_2,
                    payload: OutboundChunks::Single(payload),
                },
                self.seq,
            )
            .expect("seal");
        self.seq += 1;
        m.encode()
    }

    /// Switch to the next keys (after sending a KeyUpdate).
    pub fn update(&mut self) {
        self.generation += 1;
        self.enc = encrypter(self.suite, fixed_secret(self.generation)).expect("encrypter");
        self.seq = 0;
    }
}

/// Write `tx[pos..]` to `io`, then empty the queue; WouldBlock (with `pos` kept) while
/// some remain. The handshake's queue and the record layer's both go out this way.
pub(crate) fn write_queued<T: io::Write>(
    io: &mut T,
    tx: &mut Vec<u8>,
    pos: &mut usize,
) -> io::Result<()> {
    while *pos < tx.len() {
        match io.write(&tx[*pos..]) {
            Ok(0) => return Err(io::ErrorKind::WriteZero.into()),
            Ok(n) => *pos += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    tx.clear();
    *pos = 0;
    Ok(())
}

/// A record layer over made-up secrets (AES-256-GCM, TLS 1.3 or 1.2) and the peer that
/// sends to it, for tests and fuzzing.
#[doc(hidden)]
pub fn test_pair(tls13: bool) -> (Records<FixedKeys>, Sealer) {
    use rustls::crypto::aws_lc_rs::cipher_suite as cs;
    let suite = if tls13 {
        cs::TLS13_AES_256_GCM_SHA384
    } else {
        cs::TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384
    };
    let records = Records::new(
        FixedKeys::default(),
        suite,
        (0, fixed_secret(0)),
        (0, fixed_secret(100)),
        vec![0; RX_CAPACITY],
        0,
        0,
        Vec::new(),
    )
    .expect("records");
    let sealer = Sealer {
        suite,
        enc: encrypter(suite, fixed_secret(0)).expect("encrypter"),
        seq: 0,
        generation: 0,
    };
    (records, sealer)
}

/// A transport for tests and fuzzing: reads hand out `input` at most `piece` bytes at a
/// time (then WouldBlock, or the end once `closed`); writes are kept.
#[doc(hidden)]
#[derive(Debug, Default)]
pub struct Pipe {
    pub input: Vec<u8>,
    pub pos: usize,
    pub piece: usize,
    pub closed: bool,
    pub written: Vec<u8>,
}

impl io::Read for Pipe {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let rest = &self.input[self.pos..];
        if rest.is_empty() {
            return if self.closed {
                Ok(0)
            } else {
                Err(io::ErrorKind::WouldBlock.into())
            };
        }
        let n = rest.len().min(buf.len()).min(self.piece.max(1));
        buf[..n].copy_from_slice(&rest[..n]);
        self.pos += n;
        Ok(n)
    }
}

impl io::Write for Pipe {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.written.extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// Everything a test session hands out of `wire` read `piece` bytes at a time, and how the
/// stream ended (`"end"` or the failure): what the fuzz target and the unit test compare
/// across read sizes.
#[doc(hidden)]
pub fn run_split(tls13: bool, wire: &[u8], piece: usize) -> (Vec<u8>, String) {
    let (mut r, _) = test_pair(tls13);
    let mut p = Pipe {
        input: wire.to_vec(),
        piece,
        closed: true,
        ..Pipe::default()
    };
    let mut out = Vec::new();
    let mut buf = [0u8; 700];
    loop {
        match r.recv(&mut p, &mut buf) {
            Ok(0) => return (out, "end".into()),
            Ok(n) => out.extend_from_slice(&buf[..n]),
            Err(Failure::Io(e)) => panic!("the pipe never fails: {e}"),
            Err(f) => return (out, format!("{f:?}")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const APP: u8 = 23;
    const ALERT: u8 = 21;
    const HS: u8 = 22;

    /// Everything `r` hands out from `p` until it would block or ends.
    fn drain(r: &mut Records<FixedKeys>, p: &mut Pipe) -> (Vec<u8>, Option<Failure>) {
        let mut out = Vec::new();
        let mut buf = [0u8; 5000];
        loop {
            match r.recv(p, &mut buf) {
                Ok(0) => return (out, None),
                Ok(n) => out.extend_from_slice(&buf[..n]),
                Err(f) => return (out, Some(f)),
            }
        }
    }

    fn pipe(input: Vec<u8>, piece: usize, closed: bool) -> Pipe {
        Pipe {
            input,
            piece,
            closed,
            ..Pipe::default()
        }
    }

    fn body(n: usize) -> Vec<u8> {
        (0..n).map(|i| (i * 7 % 251) as u8).collect()
    }

    fn would_block(f: &Option<Failure>) -> bool {
        matches!(f, Some(Failure::Io(e)) if e.kind() == io::ErrorKind::WouldBlock)
    }

    #[test]
    fn records_split_across_reads_in_any_pieces() {
        for tls13 in [true, false] {
            for piece in [1, 3, 5, 6, 100, 16_389, 40_000] {
                let (mut r, mut s) = test_pair(tls13);
                let data = body(50_000);
                let mut wire = Vec::new();
                for c in data.chunks(MAX_FRAGMENT) {
                    wire.extend(s.seal(APP, c, 0));
                }
                wire.extend(s.seal(ALERT, &[1, 0], 0));
                let mut p = pipe(wire, piece, true);
                let (got, fail) = drain(&mut r, &mut p);
                assert!(fail.is_none(), "tls13 {tls13} piece {piece}: {fail:?}");
                assert_eq!(got, data, "tls13 {tls13} piece {piece}");
            }
        }
    }

    #[test]
    fn coalesced_records_in_one_read_come_out_in_order() {
        let (mut r, mut s) = test_pair(true);
        let mut wire = Vec::new();
        for i in 0..20u8 {
            wire.extend(s.seal(APP, &[i; 10], 0));
        }
        let mut p = pipe(wire, usize::MAX, false);
        // A small buffer: a record's plaintext is handed out over several calls.
        let mut out = Vec::new();
        let mut buf = [0u8; 3];
        loop {
            match r.recv(&mut p, &mut buf) {
                Ok(n) => out.extend_from_slice(&buf[..n]),
                Err(Failure::Io(e)) if e.kind() == io::ErrorKind::WouldBlock => break,
                Err(f) => panic!("{f:?}"),
            }
        }
        let want: Vec<u8> = (0..20u8).flat_map(|i| [i; 10]).collect();
        assert_eq!(out, want);
        assert_eq!(p.pos, p.input.len(), "one read took all the records");
    }

    #[test]
    fn zero_length_records_are_skipped_but_limited() {
        let (mut r, mut s) = test_pair(true);
        let mut wire = Vec::new();
        for _ in 0..5 {
            wire.extend(s.seal(APP, b"", 0));
        }
        wire.extend(s.seal(APP, b"after", 0));
        let mut p = pipe(wire, usize::MAX, false);
        let (got, fail) = drain(&mut r, &mut p);
        assert_eq!(got, b"after");
        assert!(would_block(&fail), "{fail:?}");

        let (mut r, mut s) = test_pair(false);
        let mut wire = Vec::new();
        for _ in 0..=EMPTY_RECORDS_MAX {
            wire.extend(s.seal(APP, b"", 0));
        }
        let mut p = pipe(wire, usize::MAX, false);
        let (_, fail) = drain(&mut r, &mut p);
        assert!(
            matches!(
                fail,
                Some(Failure::Tls(Error::PeerMisbehaved(
                    PeerMisbehaved::TooManyEmptyFragments
                )))
            ),
            "{fail:?}"
        );
    }

    #[test]
    fn tls13_padding_is_removed() {
        let (mut r, mut s) = test_pair(true);
        let mut wire = s.seal(APP, b"padded", 200);
        wire.extend(s.seal(APP, b"", 17));
        wire.extend(s.seal(APP, b"+more", 1));
        let mut p = pipe(wire, 7, false);
        let (got, fail) = drain(&mut r, &mut p);
        assert_eq!(got, b"padded+more");
        assert!(would_block(&fail), "{fail:?}");
        // All padding, no content type: rustls' IllegalTlsInnerPlaintext.
        let (mut r, _) = test_pair(true);
        let (_, mut s0) = test_pair(true);
        let wire = s0.seal(0, &[0; 5], 0);
        let mut p = pipe(wire, 100, false);
        let (_, fail) = drain(&mut r, &mut p);
        assert!(
            matches!(
                fail,
                Some(Failure::Tls(Error::PeerMisbehaved(
                    PeerMisbehaved::IllegalTlsInnerPlaintext
                )))
            ),
            "{fail:?}"
        );
    }

    #[test]
    fn bad_mac_fails_with_bad_record_mac_alert() {
        for tls13 in [true, false] {
            let (mut r, mut s) = test_pair(tls13);
            let mut wire = s.seal(APP, b"good", 0);
            let mut bad = s.seal(APP, b"tampered", 0);
            let last = bad.len() - 1;
            bad[last] ^= 1;
            wire.extend(bad);
            let mut p = pipe(wire, usize::MAX, false);
            let (got, fail) = drain(&mut r, &mut p);
            assert_eq!(got, b"good");
            assert!(
                matches!(fail, Some(Failure::Tls(Error::DecryptError))),
                "{fail:?}"
            );
            // The same error again, and one encrypted fatal alert sent (bad_record_mac).
            let mut buf = [0u8; 10];
            assert!(matches!(
                r.recv(&mut p, &mut buf),
                Err(Failure::Tls(Error::DecryptError))
            ));
            let h = parse_header(&p.written).unwrap().unwrap();
            assert_eq!(
                h.typ,
                if tls13 {
                    ContentType::ApplicationData
                } else {
                    ContentType::Alert
                }
            );
            assert_eq!(p.written.len(), HEADER_LEN + h.len);
        }
    }

    #[test]
    fn close_notify_ends_the_data_and_eof_without_it_is_truncation() {
        let (mut r, mut s) = test_pair(true);
        let mut wire = s.seal(APP, b"x", 0);
        wire.extend(s.seal(ALERT, &[1, 0], 0));
        wire.extend(s.seal(APP, b"ignored", 0));
        let mut p = pipe(wire, usize::MAX, false);
        let (got, fail) = drain(&mut r, &mut p);
        assert_eq!(got, b"x");
        assert!(fail.is_none());

        let (mut r, mut s) = test_pair(false);
        let wire = s.seal(APP, b"y", 0);
        let mut p = pipe(wire[..wire.len() - 1].to_vec(), usize::MAX, true);
        let (got, fail) = drain(&mut r, &mut p);
        assert!(got.is_empty());
        assert!(matches!(fail, Some(Failure::Truncated)), "{fail:?}");
    }

    #[test]
    fn alerts_as_rustls_takes_them() {
        // TLS 1.2 warnings are ignored (at most four), a fatal alert fails.
        let (mut r, mut s) = test_pair(false);
        let mut wire = s.seal(ALERT, &[1, 90], 0);
        wire.extend(s.seal(APP, b"a", 0));
        wire.extend(s.seal(ALERT, &[2, 40], 0));
        let mut p = pipe(wire, usize::MAX, false);
        let (got, fail) = drain(&mut r, &mut p);
        assert_eq!(got, b"a");
        assert!(
            matches!(
                fail,
                Some(Failure::Tls(Error::AlertReceived(
                    AlertDescription::HandshakeFailure
                )))
            ),
            "{fail:?}"
        );
        // TLS 1.3: a warning other than user_canceled is fatal.
        let (mut r, mut s) = test_pair(true);
        let mut wire = s.seal(ALERT, &[1, 90], 0);
        wire.extend(s.seal(APP, b"b", 0));
        wire.extend(s.seal(ALERT, &[1, 42], 0));
        let mut p = pipe(wire, usize::MAX, false);
        let (got, fail) = drain(&mut r, &mut p);
        assert_eq!(got, b"b");
        assert!(
            matches!(
                fail,
                Some(Failure::Tls(Error::AlertReceived(
                    AlertDescription::BadCertificate
                )))
            ),
            "{fail:?}"
        );
        assert!(!p.written.is_empty(), "decode_error alert sent");
    }

    #[test]
    fn tickets_and_key_updates_across_records() {
        let (mut r, mut s) = test_pair(true);
        let ticket = |n: u8| {
            let mut m = vec![4, 0, 0, 20];
            m.extend([n; 20]);
            m
        };
        let mut wire = s.seal(APP, b"one ", 0);
        // Two tickets in one record, a third split over two records.
        let mut two = ticket(1);
        two.extend(ticket(2));
        wire.extend(s.seal(HS, &two, 0));
        let t3 = ticket(3);
        wire.extend(s.seal(HS, &t3[..7], 0));
        wire.extend(s.seal(HS, &t3[7..], 0));
        // The peer updates its keys and asks us to update ours.
        wire.extend(s.seal(HS, &[24, 0, 0, 1, 1], 0));
        s.update();
        wire.extend(s.seal(APP, b"two", 0));
        let mut p = pipe(wire, 11, false);
        let (got, fail) = drain(&mut r, &mut p);
        assert_eq!(got, b"one two");
        assert!(would_block(&fail), "{fail:?}");
        assert_eq!(r.keys().tickets.len(), 3);
        assert_eq!(r.keys().tickets[2], vec![3; 20]);
        assert_eq!((r.keys().rx_updates, r.keys().tx_updates), (1, 1));
        // Our answer: one KeyUpdate record sent under the old keys.
        let h = parse_header(&p.written).unwrap().unwrap();
        assert_eq!(p.written.len(), HEADER_LEN + h.len);
        // A KeyUpdate followed by more handshake bytes in its record is refused.
        let (mut r, mut s) = test_pair(true);
        let mut m = vec![24, 0, 0, 1, 0];
        m.extend(ticket(9));
        let mut p = pipe(s.seal(HS, &m, 0), usize::MAX, false);
        let (_, fail) = drain(&mut r, &mut p);
        assert!(
            matches!(
                fail,
                Some(Failure::Tls(Error::PeerMisbehaved(
                    PeerMisbehaved::KeyEpochWithPendingFragment
                )))
            ),
            "{fail:?}"
        );
    }

    #[test]
    fn tls12_renegotiation_is_refused_once() {
        let (mut r, mut s) = test_pair(false);
        let mut wire = s.seal(HS, &[0, 0, 0, 0], 0);
        wire.extend(s.seal(APP, b"ok", 0));
        wire.extend(s.seal(HS, &[0, 0, 0, 0], 0));
        let mut p = pipe(wire, usize::MAX, false);
        let (got, fail) = drain(&mut r, &mut p);
        assert_eq!(got, b"ok");
        assert!(
            matches!(
                fail,
                Some(Failure::Tls(Error::PeerMisbehaved(
                    PeerMisbehaved::TooManyRenegotiationRequests
                )))
            ),
            "{fail:?}"
        );
        assert!(!p.written.is_empty(), "no_renegotiation warning sent");
    }

    /// The fuzz target's property over pseudo-random inputs: what comes out, and how the
    /// stream ends, does not depend on how the input is split into reads.
    #[test]
    fn read_sizes_do_not_change_the_outcome() {
        let mut x = 0x2545_f491_4f6c_dd1du64;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        for round in 0..300 {
            let tls13 = round % 2 == 0;
            let (_, mut s) = test_pair(tls13);
            let mut wire = Vec::new();
            for _ in 0..next() % 12 {
                let typ = [21, 22, 23, 23, 24][(next() % 5) as usize];
                let len = (next() % 300) as usize;
                let data: Vec<u8> = (0..len).map(|_| (next() % 4) as u8).collect();
                wire.extend(s.seal(typ, &data, (next() % 3) as usize));
            }
            if round % 3 == 0 && !wire.is_empty() {
                let i = (next() as usize) % wire.len();
                wire[i] ^= 1 << (next() % 8);
            }
            let whole = run_split(tls13, &wire, usize::MAX);
            for piece in [1, 2, 5, 17, 1000] {
                assert_eq!(
                    whole,
                    run_split(tls13, &wire, piece),
                    "round {round} piece {piece}"
                );
            }
        }
    }

    #[test]
    fn headers_are_checked_as_rustls_checks_them() {
        assert_eq!(parse_header(&[23, 3]).unwrap(), None);
        assert!(matches!(
            parse_header(&[99]),
            Err(Error::InvalidMessage(InvalidMessage::InvalidContentType))
        ));
        assert!(matches!(
            parse_header(&[23, 4, 0]),
            Err(Error::InvalidMessage(
                InvalidMessage::UnknownProtocolVersion
            ))
        ));
        assert!(matches!(
            parse_header(&[21, 3, 3, 0, 0]),
            Err(Error::InvalidMessage(InvalidMessage::InvalidEmptyPayload))
        ));
        assert!(matches!(
            parse_header(&[23, 3, 3, 0x48, 0x00]),
            Err(Error::InvalidMessage(InvalidMessage::MessageTooLarge))
        ));
        assert_eq!(
            parse_header(&[23, 3, 3, 0x47, 0xff]).unwrap().unwrap().len,
            MAX_PAYLOAD - 1
        );
        // An oversized record fails before the rest of it is read.
        let (mut r, _) = test_pair(true);
        let mut p = pipe(vec![23, 3, 3, 0x48, 0x00, 1, 2], usize::MAX, false);
        let (_, fail) = drain(&mut r, &mut p);
        assert!(
            matches!(
                fail,
                Some(Failure::Tls(Error::InvalidMessage(
                    InvalidMessage::MessageTooLarge
                )))
            ),
            "{fail:?}"
        );
    }

    /// Our records as the peer reads them, for TLS 1.3 and 1.2, sequence numbers starting
    /// where rustls' handshake left them (TLS 1.2: after the Finished message).
    #[test]
    fn sent_records_decrypt_with_the_peer_keys_from_any_start() {
        use rustls::crypto::aws_lc_rs::cipher_suite as cs;
        for (suite, first) in [
            (cs::TLS13_AES_256_GCM_SHA384, 0),
            (cs::TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384, 1),
            (cs::TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384, 1),
        ] {
            let mk = |rx: u8, tx: u8| {
                Records::new(
                    FixedKeys::default(),
                    suite,
                    (first, fixed_secret(rx)),
                    (first, fixed_secret(tx)),
                    vec![0; RX_CAPACITY],
                    0,
                    0,
                    Vec::new(),
                )
                .unwrap()
            };
            let mut us = mk(0, 100);
            let mut peer = mk(100, 0);
            let mut p = pipe(Vec::new(), 1, false);
            let data = body(40_000);
            for c in data.chunks(1000) {
                assert_eq!(us.send(&mut p, c).unwrap(), c.len());
            }
            let mut q = pipe(std::mem::take(&mut p.written), 999, false);
            let (got, fail) = drain(&mut peer, &mut q);
            assert!(would_block(&fail), "{suite:?}: {fail:?}");
            assert_eq!(got, data, "{suite:?}");
        }
    }

    #[test]
    fn sent_records_decrypt_with_the_peer_keys() {
        // Our records as the peer reads them: a second pair whose receive keys are our send keys.
        let (mut r, _) = test_pair(true);
        let mut p = pipe(Vec::new(), 1, false);
        let data = body(40_000);
        let n = r.send(&mut p, &data).unwrap();
        assert_eq!(n, 40_000);
        let mut peer = Records::new(
            FixedKeys::default(),
            r.suite,
            (0, fixed_secret(100)),
            (0, fixed_secret(0)),
            vec![0; RX_CAPACITY],
            0,
            0,
            Vec::new(),
        )
        .unwrap();
        let mut q = pipe(std::mem::take(&mut p.written), 999, false);
        let (got, _) = drain(&mut peer, &mut q);
        assert_eq!(got, data);
    }
}
