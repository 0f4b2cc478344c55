//! A CONNECT tunnel through an HTTPS proxy that chose HTTP/2 (`--proxy-http2`, curl's
//! `cf-h2-proxy.c`): CONNECT goes as the first stream of a connection of its own (`:method
//! CONNECT`, `:authority host:port`, no `:scheme` or `:path`), and a 2xx answer turns the
//! stream into the connection's transport ([`Tunnel`]).
//!
//! As in curl 8.14.1: the CONNECT request and answer are neither shown by `-v` nor given to
//! the header callback, `%{http_connect}` stays 0, and an answer other than 2xx (407
//! included: its `Proxy-Authenticate` is read, but curl does not ask again on an HTTP/2
//! tunnel) or a reset stream fails with 56 and curl's generic text.

use std::task::Poll;

use bytes::Bytes;
use h2::client::{ResponseFuture, SendRequest};
use h2::SendStream;

use super::{Cx, FilterStep, Interest, State, Transfer};

use crate::conn::Conn;
use crate::error::{Code, Error, Result};
use crate::proto::h1::request;
use crate::proto::h2::tunnel::Tunnel;
use crate::proto::h2::{self as mux, Mux};
use crate::timer::TimerId;

/// The CONNECT stream being set up.
#[derive(Default)]
pub(super) struct H2Connect {
    sender: Option<SendRequest<Bytes>>,
    response: Option<ResponseFuture>,
    send: Option<SendStream<Bytes>>,
    id: u32,
    /// The CONNECT request, made (and its proxy authorization noted) before the tunnel's
    /// "Establish" line, as curl's `submit_CONNECT` makes it; sent once h2 is ready.
    request: Option<http::Request<()>>,
    /// The proxy connection was driven once.
    started: bool,
}

/// curl's wording when the tunnel could not be made (`CURLE_RECV_ERROR` with no text).
fn failed() -> Error {
    Error::code(Code::RecvError)
}

impl Transfer {
    /// Did the HTTPS proxy pick HTTP/2 (ALPN) on the fresh connection?
    pub(super) fn proxy_speaks_h2(&self) -> bool {
        self.conn
            .as_ref()
            .and_then(|c| c.proxy_tls.as_ref())
            .and_then(|t| t.alpn())
            == Some(&b"h2"[..])
    }

    /// Start HTTP/2 on the proxy connection and queue CONNECT for the URL's origin.
    pub(super) fn start_h2_tunnel(&mut self) -> Result<()> {
        let authority = self.tunnel_authority();
        self.verbose("CONNECT tunnel: HTTP/2 negotiated");
        let request = self.h2_connect_request(&authority)?;
        self.verbose(&format!("Establish HTTP/2 proxy tunnel to {authority}"));
        let c = self.conn.as_mut().expect("conn");
        c.h2 = Some(Mux::new());
        self.h2connect = Some(Box::new(H2Connect {
            request: Some(request),
            ..H2Connect::default()
        }));
        self.state = State::Filter(FilterStep::Tunnel);
        Ok(())
    }

    /// What the CONNECT handshake waits on: the proxy socket, always readable.
    pub(super) fn h2_tunnel_interest(&self) -> Option<Interest<'_>> {
        let c = self.conn.as_ref()?;
        let write = c.wants_write() || c.h2.as_ref().is_some_and(|m| m.wants_write());
        Some(Interest {
            fd: c.stream.fd(),
            id: c.sock_id,
            read: true,
            write,
            shared: false,
        })
    }

    /// The CONNECT request: curl's `Curl_http_proxy_create_CONNECT` for HTTP/2, then its
    /// `Curl_http_req_to_h2` (no `Host`, no `Proxy-Connection`, lower-case names).
    fn h2_connect_request(&mut self, authority: &str) -> Result<http::Request<()>> {
        let custom = request::custom_has(&self.opts.proxy_headers, "Proxy-Authorization");
        let authorization = self.proxy_authorization("CONNECT", authority, true, custom);
        let mut head = Vec::with_capacity(256);
        head.extend_from_slice(format!("CONNECT {authority} HTTP/2\r\n").as_bytes());
        if let Some(a) = authorization {
            head.extend_from_slice(b"Proxy-Authorization: ");
            head.extend_from_slice(&a);
            head.extend_from_slice(b"\r\n");
        }
        if let Some(ua) = self.opts.useragent.as_deref().filter(|u| !u.is_empty()) {
            if !request::custom_has(&self.opts.proxy_headers, "User-Agent") {
                head.extend_from_slice(format!("User-Agent: {ua}\r\n").as_bytes());
            }
        }
        for h in &self.opts.proxy_headers {
            request::add_custom(&mut head, h);
        }
        head.extend_from_slice(b"\r\n");
        let h2head =
            mux::req::from_h1(&head, |_, _| false).map_err(|e| Error::new(Code::SendError, e))?;
        let mut b = http::Request::builder()
            .method(http::Method::CONNECT)
            .uri(authority);
        for (n, v) in &h2head.fields {
            b = b.header(n.as_str(), v.as_str());
        }
        b.body(())
            .map_err(|e| Error::new(Code::SendError, format!("HTTP/2 CONNECT: {e}")))
    }

    /// Drive the CONNECT stream until it is answered.
    pub(super) fn do_h2_tunnel(&mut self, cx: &mut Cx<'_>) -> Result<bool> {
        let mut st = self.h2connect.take().expect("h2 connect");
        let r = self.h2_tunnel_step(cx, &mut st);
        if matches!(self.state, State::Filter(FilterStep::Tunnel)) && r.is_ok() {
            self.h2connect = Some(st);
        }
        r
    }

    /// Let h2 read and write on the proxy connection. The proxy's TLS records, and the
    /// session tickets that come with them, are traced as they pass (curl's `ossl_trace`
    /// on the proxy filter while the CONNECT stream is set up).
    /// The first drive takes in what the proxy sent since the handshake (its session
    /// tickets, its SETTINGS) before h2 writes the preface, as curl's first pass reads
    /// before it writes.
    fn proxy_mux_drive(&mut self, first: bool) -> Option<h2::Error> {
        let trace = self.tls_trace_on();
        if trace {
            self.tls_trace_start();
        }
        let mut c = self.conn.take().expect("conn");
        if first {
            if let Some(p) = c.proxy_tls.as_mut() {
                p.read_ahead(&mut crate::tls::Io::Sock(&mut c.stream));
            }
        }
        let mut err = None;
        if let Some(mut m) = c.h2.take() {
            c = m.drive(c);
            err = m.error().map(mux::clone_error);
            c.h2 = Some(m);
        }
        self.conn = Some(c);
        if trace {
            self.tls_trace_end();
        }
        err
    }

    fn h2_tunnel_step(&mut self, cx: &mut Cx<'_>, st: &mut H2Connect) -> Result<bool> {
        let closed = self.proxy_mux_drive(!std::mem::replace(&mut st.started, true));
        if st.sender.is_none() {
            if closed.is_some() {
                return Err(failed());
            }
            let c = self.conn.as_ref().expect("conn");
            match c.h2.as_ref().and_then(|m| m.sender()) {
                Some(s) => st.sender = Some(s),
                None => return Ok(false),
            }
        }
        if st.response.is_none() {
            let sender = st.sender.as_mut().expect("sender");
            match mux::ready(sender, &self.waker) {
                Ok(true) => {}
                Ok(false) => return Ok(false),
                Err(_) => return Err(failed()),
            }
            let req = st.request.take().expect("CONNECT request");
            let sender = st.sender.as_mut().expect("sender");
            let (response, send) = sender.send_request(req, false).map_err(|_| failed())?;
            st.id = response.stream_id().as_u32();
            st.response = Some(response);
            st.send = Some(send);
            // Push the request out now.
            if self.proxy_mux_drive(false).is_some() {
                return Err(failed());
            }
        }
        let f = st.response.as_mut().expect("response");
        let resp = match mux::poll_response(f, &self.waker) {
            Poll::Pending => {
                if self.proxy_mux_drive(false).is_some() {
                    return Err(failed());
                }
                return Ok(false);
            }
            Poll::Ready(Err(_)) => return Err(failed()),
            Poll::Ready(Ok(r)) => r,
        };
        let code = resp.status().as_u16() as u32;
        if code == 407 {
            if let Some(v) = resp.headers().get(http::header::PROXY_AUTHENTICATE) {
                let mut notes = Vec::new();
                self.proxy_auth.input(v.as_bytes(), &mut notes);
                for n in notes {
                    self.verbose(n);
                }
            }
        }
        if !(200..300).contains(&code) {
            return Err(failed());
        }
        self.verbose(&format!("CONNECT tunnel established, response {code}"));
        self.verbose("CONNECT phase completed");
        let recv = resp.into_body();
        let send = st.send.take().expect("send stream");
        let proxy = self.conn.take().expect("conn");
        let stream = proxy.stream.try_clone().map_err(|e| {
            Error::new(
                Code::CouldntConnect,
                format!("socket: {}", crate::connect::os_error_text(&e)),
            )
        })?;
        self.conn = Some(Conn {
            id: proxy.id,
            sock_id: crate::connect::next_sock_id(),
            stream,
            tls: None,
            proxy_tls: None,
            key: proxy.key.clone(),
            host: proxy.host.clone(),
            port: proxy.port,
            remote: proxy.remote,
            local: proxy.local,
            uses: proxy.uses,
            http10: false,
            h2: None,
            version_seen: false,
            idle_since: proxy.idle_since,
            created: proxy.created,
            // A second descriptor: the proxy connection inside the tunnel has the hooks.
            hooks: None,
            proto: None,
            tunnel: Some(Box::new(Tunnel::new(proxy, st.id, send, recv))),
        });
        self.timers.clear(TimerId::ConnectTimeout);
        if self.scheme_tls() {
            self.start_tls(cx)?;
        } else {
            self.established(cx);
        }
        Ok(true)
    }
}
