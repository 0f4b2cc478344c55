//! Multi handles: `curl_multi_*` on `oxcurl_core::Multi`. A `CURLM *` is a
//! `Box<MultiHandle>`. The engine multi is moved out of the handle while it runs, and a
//! `busy` flag makes API calls from inside callbacks answer `CURLM_RECURSIVE_API_CALL`.
//!
//! The event-driven API (`curl_multi_socket_action`): with `CURLMOPT_SOCKETFUNCTION` set the
//! engine aggregates socket interests, and after each run the changes are handed to the
//! socket callback one at a time, with the engine back in the handle and no borrow held (so
//! `curl_multi_assign` works from inside it); then `CURLMOPT_TIMERFUNCTION` is told the new
//! deadline if it moved.

use crate::consts::*;
use crate::easy::EasyHandle;
use oxcurl_core::multi::{Foreign, PollFlags};
use oxcurl_core::{Easy, Multi, MultiWaker, SocketWhat, TransferId};
use std::cell::{Cell, RefCell};
use std::collections::VecDeque;
use std::ffi::{c_int, c_long, c_uint, c_void};
use std::os::fd::BorrowedFd;
use std::time::{Duration, Instant};

/// `curl_socket_callback`.
type SocketCb = unsafe extern "C" fn(
    easy: *mut EasyHandle,
    s: c_int,
    what: c_int,
    clientp: *mut c_void,
    socketp: *mut c_void,
) -> c_int;

/// `curl_multi_timer_callback`.
type TimerCb =
    unsafe extern "C" fn(multi: *mut MultiHandle, ms: c_long, clientp: *mut c_void) -> c_int;

/// The `data` union of `CURLMsg`.
#[repr(C)]
#[derive(Clone, Copy)]
pub union MsgData {
    pub whatever: *mut c_void,
    pub result: c_int,
}

/// `CURLMsg` from multi.h.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct CurlMsg {
    pub msg: c_int,
    pub easy_handle: *mut EasyHandle,
    pub data: MsgData,
}

/// `struct curl_waitfd` from multi.h (extra descriptors for `curl_multi_wait`).
#[repr(C)]
pub struct CurlWaitFd {
    pub fd: c_int,
    pub events: i16,
    pub revents: i16,
}

struct State {
    multi: Option<Box<Multi>>,
    /// Every easy handle added and not removed; the id while its transfer runs.
    handles: Vec<(*mut EasyHandle, Option<TransferId>)>,
    msgs: VecDeque<CurlMsg>,
    /// The message `curl_multi_info_read` last returned (valid until the next call).
    current: Box<CurlMsg>,
}

const MAGIC: u32 = 0xc0de_3a17;

/// What a `CURLM *` points to.
pub struct MultiHandle {
    magic: u32,
    state: RefCell<State>,
    busy: Cell<bool>,
    /// Thread-safe: the only field `curl_multi_wakeup` touches besides `magic`.
    waker: MultiWaker,
    socket_cb: Cell<Option<SocketCb>>,
    socket_data: Cell<*mut c_void>,
    timer_cb: Cell<Option<TimerCb>>,
    timer_data: Cell<*mut c_void>,
    /// The deadline the timer callback was last told (None: no timer).
    told: Cell<Option<Instant>>,
    /// The socket callback returned -1 (curl's `multi->dead`): every transfer fails
    /// with `CURLE_ABORTED_BY_CALLBACK` when the multi next runs.
    dead: Cell<bool>,
}

impl MultiHandle {
    /// # Safety
    /// `p` is NULL or a live pointer from `curl_multi_init`.
    unsafe fn from_ptr<'a>(p: *mut MultiHandle) -> Option<&'a MultiHandle> {
        if p.is_null() {
            return None;
        }
        // SAFETY: per the caller.
        let m = unsafe { &*p };
        (m.magic == MAGIC).then_some(m)
    }
}

/// Looks up a multi handle and refuses calls from inside its callbacks.
macro_rules! multi {
    ($p:expr) => {{
        // SAFETY: NULL or a live multi handle, per the API contract.
        let Some(m) = (unsafe { MultiHandle::from_ptr($p) }) else {
            return CURLM_BAD_HANDLE;
        };
        if m.busy.get() {
            return CURLM_RECURSIVE_API_CALL;
        }
        m
    }};
}

/// `curl_multi_init`.
#[no_mangle]
pub extern "C" fn curl_multi_init() -> *mut MultiHandle {
    guard!(std::ptr::null_mut(), {
        let Ok(multi) = Multi::new() else {
            return std::ptr::null_mut();
        };
        let waker = multi.waker();
        Box::into_raw(Box::new(MultiHandle {
            magic: MAGIC,
            waker,
            socket_cb: Cell::new(None),
            socket_data: Cell::new(std::ptr::null_mut()),
            timer_cb: Cell::new(None),
            timer_data: Cell::new(std::ptr::null_mut()),
            told: Cell::new(None),
            dead: Cell::new(false),
            state: RefCell::new(State {
                multi: Some(Box::new(multi)),
                handles: Vec::new(),
                msgs: VecDeque::new(),
                current: Box::new(CurlMsg {
                    msg: 0,
                    easy_handle: std::ptr::null_mut(),
                    data: MsgData { result: 0 },
                }),
            }),
            busy: Cell::new(false),
        }))
    })
}

/// Ends a running transfer of `e` without a message, putting its statistics back.
fn detach(multi: &mut Multi, e: &EasyHandle, id: Option<TransferId>) {
    if let Some(id) = id {
        if let Some((mut easy, info)) = multi.remove(id) {
            e.keep_auth(easy.take_auth());
            e.finish(None, info, &Ok(()));
        }
    }
    e.in_multi.set(false);
}

/// `curl_multi_cleanup`: removes every easy handle (they stay valid) and frees the multi.
#[no_mangle]
pub extern "C" fn curl_multi_cleanup(p: *mut MultiHandle) -> CURLMcode {
    guard!(CURLM_INTERNAL_ERROR, {
        let m = multi!(p);
        {
            let mut st = m.state.borrow_mut();
            let mut multi = st.multi.take();
            // The engine keeps the cookie jar and HSTS cache of a multi's transfers in the
            // multi: written when it goes (curl writes them at each easy handle's cleanup).
            if let Some(m) = multi.as_deref_mut() {
                let _ = m.save_cookies();
                let _ = m.save_hsts();
            }
            for (h, id) in std::mem::take(&mut st.handles) {
                // SAFETY: handles in the list are live (removal takes them out first).
                if let (Some(e), Some(multi)) =
                    (unsafe { EasyHandle::from_ptr(h) }, multi.as_deref_mut())
                {
                    detach(multi, e, id);
                }
            }
        }
        // SAFETY: a live handle from Box::into_raw, not in use (not busy); magic cleared
        // first so a stale pointer is caught.
        unsafe {
            (*p).magic = 0;
            drop(Box::from_raw(p));
        }
        CURLM_OK
    })
}

/// `curl_multi_add_handle`.
#[no_mangle]
pub extern "C" fn curl_multi_add_handle(p: *mut MultiHandle, h: *mut EasyHandle) -> CURLMcode {
    guard!(CURLM_INTERNAL_ERROR, {
        let m = multi!(p);
        // SAFETY: NULL or a live easy handle.
        let Some(e) = (unsafe { EasyHandle::from_ptr(h) }) else {
            return CURLM_BAD_EASY_HANDLE;
        };
        if e.in_multi.get() {
            return CURLM_ADDED_ALREADY;
        }
        if e.busy.get() {
            return CURLM_RECURSIVE_API_CALL;
        }
        if m.dead.get() {
            // As curl 8.14: a dead multi takes no transfer while it holds any easy handle,
            // finished or not, and starts over when it holds none.
            if !m.state.borrow().handles.is_empty() {
                return CURLM_ABORTED_BY_CALLBACK;
            }
            m.dead.set(false);
        }
        let (opts, callbacks) = e.prepare();
        let mut engine = Easy::new(opts, callbacks);
        engine.set_auth(e.take_auth());
        let mut st = m.state.borrow_mut();
        let Some(multi) = st.multi.as_deref_mut() else {
            return CURLM_INTERNAL_ERROR;
        };
        let id = multi.add(engine);
        st.handles.push((h, Some(id)));
        e.in_multi.set(true);
        drop(st);
        let rc = notify(m, p, h);
        if rc == CURLM_ABORTED_BY_CALLBACK {
            // curl 8.14.1 takes the handle back out when the timer callback refuses.
            let mut st = m.state.borrow_mut();
            st.handles.retain(|x| x.0 != h);
            if let Some(multi) = st.multi.as_deref_mut() {
                detach(multi, e, Some(id));
            }
        }
        rc
    })
}

/// `curl_multi_remove_handle`: a running transfer is stopped.
#[no_mangle]
pub extern "C" fn curl_multi_remove_handle(p: *mut MultiHandle, h: *mut EasyHandle) -> CURLMcode {
    guard!(CURLM_INTERNAL_ERROR, {
        let m = multi!(p);
        // SAFETY: NULL or a live easy handle.
        let Some(e) = (unsafe { EasyHandle::from_ptr(h) }) else {
            return CURLM_BAD_EASY_HANDLE;
        };
        let mut st = m.state.borrow_mut();
        let Some(pos) = st.handles.iter().position(|x| x.0 == h) else {
            // Not (or no longer) in this multi: curl answers OK.
            return CURLM_OK;
        };
        let (_, id) = st.handles.remove(pos);
        st.msgs.retain(|msg| msg.easy_handle != h);
        if let Some(multi) = st.multi.as_deref_mut() {
            detach(multi, e, id);
        }
        drop(st);
        // curl does not fail a removal for what the socket callback answers about the
        // transfer's sockets; only the timer callback's answer counts.
        m.busy.set(true);
        let _ = report_sockets(m, h);
        let rc = report_timer(m, p, false);
        m.busy.set(false);
        rc
    })
}

/// `curl_multi_perform`: runs what can run without blocking; finished transfers queue a
/// `CURLMSG_DONE`.
#[no_mangle]
pub extern "C" fn curl_multi_perform(p: *mut MultiHandle, running: *mut c_int) -> CURLMcode {
    guard!(CURLM_INTERNAL_ERROR, {
        let m = multi!(p);
        // The application may wait on its own (select on curl_multi_fdset's descriptors), so
        // collect socket readiness without blocking first; after curl_multi_wait this finds
        // nothing new.
        run(m, p, running, false, |multi| {
            multi.poll(Duration::ZERO).and_then(|()| multi.perform())
        })
    })
}

/// Runs the engine with `f`, no borrow of either handle held while it runs callbacks; then
/// turns finished transfers into messages, reports socket changes and the new deadline.
fn run(
    m: &MultiHandle,
    p: *mut MultiHandle,
    running: *mut c_int,
    socket_rc: bool,
    f: impl FnOnce(&mut Multi) -> std::io::Result<usize>,
) -> CURLMcode {
    let Some(mut multi) = m.state.borrow_mut().multi.take() else {
        return CURLM_INTERNAL_ERROR;
    };
    renew_changed(&m.state.borrow().handles, &mut multi);
    // Flags set and cleared through short borrows (nothing allocated per call): callbacks
    // cannot add or remove handles meanwhile (recursive calls are refused).
    let set_busy = |busy: bool| {
        for &(h, _) in &m.state.borrow().handles {
            // SAFETY: handles in the list are live.
            if let Some(e) = unsafe { EasyHandle::from_ptr(h) } {
                e.busy.set(busy);
            }
        }
    };
    set_busy(true);
    m.busy.set(true);
    if m.dead.get() {
        fail_all(&m.state.borrow().handles, &mut multi);
    }
    let r = f(&mut multi);
    set_busy(false);
    let n = multi.running();
    m.state.borrow_mut().multi = Some(multi);
    // Socket changes first: finished transfers are still known to the engine, so a socket's
    // removal names its easy handle.
    let mut rc = report_sockets(m, std::ptr::null_mut());
    if rc == CURLM_ABORTED_BY_CALLBACK && !socket_rc {
        // curl_multi_perform goes on whatever the socket callback answers, as curl's does.
        m.dead.set(false);
        rc = CURLM_OK;
    }
    {
        let mut st = m.state.borrow_mut();
        let st = &mut *st;
        let Some(multi) = st.multi.as_deref_mut() else {
            m.busy.set(false);
            return CURLM_INTERNAL_ERROR;
        };
        while let Some(msg) = multi.info_read() {
            let Some(slot) = st.handles.iter_mut().find(|x| x.1 == Some(msg.id)) else {
                continue;
            };
            slot.1 = None;
            let h = slot.0;
            let Some((mut easy, info)) = multi.remove(msg.id) else {
                continue;
            };
            // SAFETY: a live handle from the list.
            let Some(e) = (unsafe { EasyHandle::from_ptr(h) }) else {
                continue;
            };
            e.state.borrow_mut().raw = easy.take_connection();
            e.keep_auth(easy.take_auth());
            let code = e.finish(None, info, &msg.result);
            st.msgs.push_back(CurlMsg {
                msg: CURLMSG_DONE,
                easy_handle: h,
                data: MsgData { result: code },
            });
        }
    }
    if rc == CURLM_OK {
        rc = report_timer(m, p, true);
    }
    m.busy.set(false);
    if r.is_err() {
        return CURLM_INTERNAL_ERROR;
    }
    if !running.is_null() {
        // SAFETY: a non-NULL `running` points to a writable int.
        unsafe { *running = c_int::try_from(n).unwrap_or(c_int::MAX) };
    }
    rc
}

/// Options set on a handle after `curl_multi_add_handle` and before its transfer started:
/// the transfer is made again from them, as curl reads a handle's options when its transfer
/// starts (curl test 1531 sets the URL and POSTFIELDS after adding the handle).
fn renew_changed(handles: &[(*mut EasyHandle, Option<TransferId>)], multi: &mut Multi) {
    for &(h, id) in handles {
        // SAFETY: handles in the list are live.
        let (Some(e), Some(id)) = (unsafe { EasyHandle::from_ptr(h) }, id) else {
            continue;
        };
        if !e.changed.replace(false) || !multi.unstarted(id) {
            continue;
        }
        let (opts, callbacks) = e.prepare();
        multi.renew(id, Easy::new(opts, callbacks));
    }
}

/// Fails every running transfer with `CURLE_ABORTED_BY_CALLBACK` (curl's `multi_runsingle`
/// on a dead multi); their messages are queued by the engine as for any finished transfer.
fn fail_all(handles: &[(*mut EasyHandle, Option<TransferId>)], multi: &mut Multi) {
    for &(_, id) in handles {
        if let Some(id) = id {
            multi.fail(
                id,
                oxcurl_core::Error::new(
                    oxcurl_core::Code::AbortedByCallback,
                    "Operation was aborted by an application callback",
                ),
            );
        }
    }
}

/// After a call that changed transfers outside `run` (add, remove): socket changes and the
/// deadline, as callbacks, with API calls from them refused.
fn notify(m: &MultiHandle, p: *mut MultiHandle, easy: *mut EasyHandle) -> CURLMcode {
    m.busy.set(true);
    let mut rc = report_sockets(m, easy);
    if rc == CURLM_OK {
        rc = report_timer(m, p, false);
    }
    m.busy.set(false);
    rc
}

/// Hands the engine's socket changes to `CURLMOPT_SOCKETFUNCTION`, one at a time with no
/// borrow held. `fallback` is the easy handle named when the transfer is already gone.
fn report_sockets(m: &MultiHandle, fallback: *mut EasyHandle) -> CURLMcode {
    loop {
        let next = {
            let mut st = m.state.borrow_mut();
            let st = &mut *st;
            let Some(multi) = st.multi.as_deref_mut() else {
                return CURLM_INTERNAL_ERROR;
            };
            multi.socket_change().map(|(c, owner)| {
                let easy = owner
                    .and_then(|id| st.handles.iter().find(|x| x.1 == Some(id)))
                    .map_or(fallback, |x| x.0);
                (c, easy)
            })
        };
        let Some((c, easy)) = next else {
            return CURLM_OK;
        };
        let Some(cb) = m.socket_cb.get() else {
            continue;
        };
        let what = match c.what {
            SocketWhat::In => CURL_POLL_IN,
            SocketWhat::Out => CURL_POLL_OUT,
            SocketWhat::InOut => CURL_POLL_INOUT,
            SocketWhat::Remove => CURL_POLL_REMOVE,
        };
        // SAFETY: the application's callback with curl_socket_callback's signature (set
        // through CURLMOPT_SOCKETFUNCTION); `user` is the pointer it gave curl_multi_assign.
        let r = unsafe { cb(easy, c.fd, what, m.socket_data.get(), c.user as *mut c_void) };
        if r == -1 {
            m.dead.set(true);
            return CURLM_ABORTED_BY_CALLBACK;
        }
    }
}

/// Tells `CURLMOPT_TIMERFUNCTION` the engine's nearest deadline if it changed since it was
/// last told: milliseconds from now (rounded up), -1 when no timer is left. After a run
/// (`ran`), a deadline already due is told again even if unchanged: the application's
/// one-shot timer for it has fired, and the multi still needs to run.
fn report_timer(m: &MultiHandle, p: *mut MultiHandle, ran: bool) -> CURLMcode {
    let Some(cb) = m.timer_cb.get() else {
        return CURLM_OK;
    };
    let deadline = {
        let mut st = m.state.borrow_mut();
        let Some(multi) = st.multi.as_deref_mut() else {
            return CURLM_INTERNAL_ERROR;
        };
        multi.next_deadline()
    };
    let due = deadline.is_some_and(|d| d <= Instant::now());
    if deadline == m.told.get() && !(ran && due) {
        return CURLM_OK;
    }
    m.told.set(deadline);
    let ms = match deadline {
        Some(at) => {
            let d = at.saturating_duration_since(Instant::now());
            c_long::try_from(d.as_nanos().div_ceil(1_000_000)).unwrap_or(c_long::MAX)
        }
        None => -1,
    };
    // SAFETY: the application's callback with curl_multi_timer_callback's signature (set
    // through CURLMOPT_TIMERFUNCTION).
    let r = unsafe { cb(p, ms, m.timer_data.get()) };
    if r == -1 {
        // curl 8.14.1 answers so but, unlike for the socket callback, keeps the transfers.
        return CURLM_ABORTED_BY_CALLBACK;
    }
    CURLM_OK
}

/// `curl_multi_socket_action`: activity on socket `s` (`CURL_SOCKET_TIMEOUT`: timers are
/// due); runs the transfers waiting on it, the expired timers and anything runnable.
#[no_mangle]
pub extern "C" fn curl_multi_socket_action(
    p: *mut MultiHandle,
    s: c_int,
    _ev_bitmask: c_int,
    running: *mut c_int,
) -> CURLMcode {
    guard!(CURLM_INTERNAL_ERROR, {
        let m = multi!(p);
        // The event bits are not needed: a transfer that is run tries its socket and
        // finds out, as curl does when they are 0.
        let fd = (s != CURL_SOCKET_TIMEOUT).then_some(s);
        run(m, p, running, true, |multi| multi.socket_action(fd))
    })
}

/// `curl_multi_socket` (deprecated): `curl_multi_socket_action` with unknown events.
#[no_mangle]
pub extern "C" fn curl_multi_socket(
    p: *mut MultiHandle,
    s: c_int,
    running: *mut c_int,
) -> CURLMcode {
    curl_multi_socket_action(p, s, 0, running)
}

/// `curl_multi_socket_all` (deprecated): runs every transfer.
#[no_mangle]
pub extern "C" fn curl_multi_socket_all(p: *mut MultiHandle, running: *mut c_int) -> CURLMcode {
    guard!(CURLM_INTERNAL_ERROR, {
        let m = multi!(p);
        run(m, p, running, true, Multi::socket_all)
    })
}

/// `curl_multi_assign`: the pointer passed to the socket callback for `s`. Allowed from
/// inside the multi's callbacks, as in curl.
#[no_mangle]
pub extern "C" fn curl_multi_assign(
    p: *mut MultiHandle,
    s: c_int,
    sockp: *mut c_void,
) -> CURLMcode {
    guard!(CURLM_INTERNAL_ERROR, {
        // SAFETY: NULL or a live multi handle.
        let Some(m) = (unsafe { MultiHandle::from_ptr(p) }) else {
            return CURLM_BAD_HANDLE;
        };
        let Ok(mut st) = m.state.try_borrow_mut() else {
            return CURLM_RECURSIVE_API_CALL;
        };
        // The engine is out of the handle only while transfers run (an easy callback).
        let Some(multi) = st.multi.as_deref_mut() else {
            return CURLM_RECURSIVE_API_CALL;
        };
        if multi.assign(s, sockp as usize) {
            CURLM_OK
        } else {
            CURLM_BAD_SOCKET
        }
    })
}

/// `curl_multi_wakeup`: ends the current or next `curl_multi_poll`; callable from any
/// thread.
#[no_mangle]
pub extern "C" fn curl_multi_wakeup(p: *mut MultiHandle) -> CURLMcode {
    guard!(CURLM_INTERNAL_ERROR, {
        // SAFETY: NULL or a live multi handle, possibly in use on another thread: only
        // `magic` (written once at init, cleared at cleanup) and the thread-safe `waker`
        // are touched, never the `RefCell`/`Cell` fields.
        let Some(m) = (unsafe { MultiHandle::from_ptr(p) }) else {
            return CURLM_BAD_HANDLE;
        };
        match m.waker.wake() {
            Ok(()) => CURLM_OK,
            Err(_) => CURLM_WAKEUP_FAILURE,
        }
    })
}

/// `curl_multi_get_handles`: the added easy handles, NULL-terminated, in memory the
/// application frees with `curl_free`.
#[no_mangle]
pub extern "C" fn curl_multi_get_handles(p: *mut MultiHandle) -> *mut *mut EasyHandle {
    guard!(std::ptr::null_mut(), {
        // SAFETY: NULL or a live multi handle.
        let Some(m) = (unsafe { MultiHandle::from_ptr(p) }) else {
            return std::ptr::null_mut();
        };
        let Ok(st) = m.state.try_borrow() else {
            return std::ptr::null_mut();
        };
        let n = st.handles.len();
        let size = (n + 1) * std::mem::size_of::<*mut EasyHandle>();
        let out = crate::alloc::app_malloc(size).cast::<*mut EasyHandle>();
        if out.is_null() {
            return out;
        }
        for (i, (h, _)) in st.handles.iter().enumerate() {
            // SAFETY: `out` holds n + 1 pointers and i < n.
            unsafe { out.add(i).write(*h) };
        }
        // SAFETY: index n is the last of the n + 1 allocated.
        unsafe { out.add(n).write(std::ptr::null_mut()) };
        out
    })
}

/// `curl_multi_waitfds`: the descriptors to wait on, as `struct curl_waitfd`s; too small an
/// array gets `CURLM_OUT_OF_MEMORY` (after filling what fits), `fd_count` how many there are.
#[no_mangle]
pub extern "C" fn curl_multi_waitfds(
    p: *mut MultiHandle,
    ufds: *mut CurlWaitFd,
    size: c_uint,
    fd_count: *mut c_uint,
) -> CURLMcode {
    guard!(CURLM_INTERNAL_ERROR, {
        if ufds.is_null() && (size > 0 || fd_count.is_null()) {
            return CURLM_BAD_FUNCTION_ARGUMENT;
        }
        let m = multi!(p);
        let st = m.state.borrow();
        let Some(multi) = st.multi.as_deref() else {
            return CURLM_INTERNAL_ERROR;
        };
        // One entry per descriptor, as curl merges the directions of a shared socket.
        let mut fds: Vec<(c_int, i16)> = Vec::new();
        for (fd, r, w) in multi.wait_fds() {
            let ev = if r { CURL_WAIT_POLLIN } else { 0 } | if w { CURL_WAIT_POLLOUT } else { 0 };
            match fds.iter_mut().find(|x| x.0 == fd) {
                Some(x) => x.1 |= ev,
                None => fds.push((fd, ev)),
            }
        }
        let room = if ufds.is_null() { 0 } else { size as usize };
        for (i, &(fd, events)) in fds.iter().take(room).enumerate() {
            // SAFETY: `ufds` is non-NULL here and holds `size` entries, i < size.
            unsafe {
                ufds.add(i).write(CurlWaitFd {
                    fd,
                    events,
                    revents: 0,
                })
            };
        }
        if !fd_count.is_null() {
            // SAFETY: a non-NULL `fd_count` points to a writable unsigned int.
            unsafe { *fd_count = c_uint::try_from(fds.len()).unwrap_or(c_uint::MAX) };
        }
        if !ufds.is_null() && fds.len() > room {
            return CURLM_OUT_OF_MEMORY;
        }
        CURLM_OK
    })
}

fn wait(
    p: *mut MultiHandle,
    extra: *mut CurlWaitFd,
    nextra: u32,
    ms: c_int,
    numfds: *mut c_int,
    wakeable: bool,
) -> CURLMcode {
    let m = multi!(p);
    if ms < 0 || (nextra > 0 && extra.is_null()) {
        return CURLM_BAD_FUNCTION_ARGUMENT;
    }
    let extra: &mut [CurlWaitFd] = if nextra == 0 {
        &mut []
    } else {
        // SAFETY: curl_multi_wait(3): `extra` holds `nextra` entries the application owns
        // and does not touch during the call; checked non-NULL above.
        unsafe { std::slice::from_raw_parts_mut(extra, nextra as usize) }
    };
    let mut foreign: Vec<Foreign<'_>> = extra
        .iter()
        .map(|w| Foreign {
            // SAFETY: the application's descriptor, open for the length of the call as
            // curl_multi_wait(3) has it (a closed one is only reported by poll(2) as
            // invalid); a negative one is left out as poll(2) leaves it out.
            fd: (w.fd >= 0).then(|| unsafe { BorrowedFd::borrow_raw(w.fd) }),
            events: wait_flags(w.events),
            revents: PollFlags::empty(),
        })
        .collect();
    let Some(mut multi) = m.state.borrow_mut().multi.take() else {
        return CURLM_INTERNAL_ERROR;
    };
    let max = Duration::from_millis(ms as u64);
    // curl_multi_wait(3): with no descriptor to wait on it returns at once (curl_multi_poll
    // waits, on its wakeup socket at least).
    let max = if !wakeable && foreign.is_empty() && !multi.has_wait_fds() {
        Duration::ZERO
    } else {
        max
    };
    let r = if wakeable {
        multi.poll_wakeable_with(max, &mut foreign).map(|(_, n)| n)
    } else {
        multi.poll_with(max, &mut foreign)
    };
    m.state.borrow_mut().multi = Some(multi);
    let Ok(n) = r else {
        return CURLM_INTERNAL_ERROR;
    };
    // curl copies the revents back only when something was ready.
    if n > 0 {
        for (w, f) in extra.iter_mut().zip(&foreign) {
            w.revents = curl_wait_bits(f.revents);
        }
    }
    if !numfds.is_null() {
        // SAFETY: a non-NULL `numfds` points to a writable int.
        unsafe { *numfds = c_int::try_from(n).unwrap_or(c_int::MAX) };
    }
    CURLM_OK
}

/// poll(2)'s flags for `CURL_WAIT_POLLIN`, `CURL_WAIT_POLLPRI` and `CURL_WAIT_POLLOUT`.
fn wait_flags(events: i16) -> PollFlags {
    let mut f = PollFlags::empty();
    if events & CURL_WAIT_POLLIN != 0 {
        f |= PollFlags::IN;
    }
    if events & CURL_WAIT_POLLPRI != 0 {
        f |= PollFlags::PRI;
    }
    if events & CURL_WAIT_POLLOUT != 0 {
        f |= PollFlags::OUT;
    }
    f
}

/// The `CURL_WAIT_POLL*` bits of poll(2)'s revents, as curl maps them (a hang-up or an
/// error alone maps to none).
fn curl_wait_bits(f: PollFlags) -> i16 {
    let mut b = 0;
    if f.contains(PollFlags::IN) {
        b |= CURL_WAIT_POLLIN;
    }
    if f.contains(PollFlags::OUT) {
        b |= CURL_WAIT_POLLOUT;
    }
    if f.contains(PollFlags::PRI) {
        b |= CURL_WAIT_POLLPRI;
    }
    b
}

/// `curl_multi_wait`: sleeps until activity on a transfer or its next timer, at most `ms`.
#[no_mangle]
pub extern "C" fn curl_multi_wait(
    p: *mut MultiHandle,
    extra: *mut CurlWaitFd,
    n: u32,
    ms: c_int,
    numfds: *mut c_int,
) -> CURLMcode {
    guard!(CURLM_INTERNAL_ERROR, {
        wait(p, extra, n, ms, numfds, false)
    })
}

/// `curl_multi_poll`: as `curl_multi_wait`, and `curl_multi_wakeup` ends it early.
#[no_mangle]
pub extern "C" fn curl_multi_poll(
    p: *mut MultiHandle,
    extra: *mut CurlWaitFd,
    n: u32,
    ms: c_int,
    numfds: *mut c_int,
) -> CURLMcode {
    guard!(CURLM_INTERNAL_ERROR, {
        wait(p, extra, n, ms, numfds, true)
    })
}

/// `curl_multi_timeout`: milliseconds until the next timer, -1 for none.
#[no_mangle]
pub extern "C" fn curl_multi_timeout(p: *mut MultiHandle, out: *mut c_long) -> CURLMcode {
    guard!(CURLM_INTERNAL_ERROR, {
        let m = multi!(p);
        if out.is_null() {
            return CURLM_BAD_FUNCTION_ARGUMENT;
        }
        let mut st = m.state.borrow_mut();
        let Some(multi) = st.multi.as_deref_mut() else {
            return CURLM_INTERNAL_ERROR;
        };
        let v = match multi.timeout() {
            // Rounded up, so a caller sleeping this long finds the timer due.
            Some(d) => c_long::try_from(d.as_nanos().div_ceil(1_000_000)).unwrap_or(c_long::MAX),
            None => -1,
        };
        // SAFETY: checked non-NULL; points to a writable long.
        unsafe { *out = v };
        CURLM_OK
    })
}

/// `curl_multi_info_read`: the next completion message, valid until the next call.
#[no_mangle]
pub extern "C" fn curl_multi_info_read(p: *mut MultiHandle, left: *mut c_int) -> *mut CurlMsg {
    guard!(std::ptr::null_mut(), {
        // SAFETY: NULL or a live multi handle.
        let Some(m) = (unsafe { MultiHandle::from_ptr(p) }) else {
            return std::ptr::null_mut();
        };
        if m.busy.get() {
            return std::ptr::null_mut();
        }
        let mut st = m.state.borrow_mut();
        let next = st.msgs.pop_front();
        if !left.is_null() {
            // SAFETY: a non-NULL `left` points to a writable int.
            unsafe { *left = c_int::try_from(st.msgs.len()).unwrap_or(c_int::MAX) };
        }
        match next {
            Some(msg) => {
                *st.current = msg;
                &mut *st.current as *mut CurlMsg
            }
            None => std::ptr::null_mut(),
        }
    })
}

/// Typed half of `curl_multi_setopt` for `long` options.
#[no_mangle]
pub extern "C" fn oxcurl_multi_setopt_long(
    p: *mut MultiHandle,
    opt: c_int,
    v: c_long,
) -> CURLMcode {
    use crate::consts::mopt::*;
    guard!(CURLM_INTERNAL_ERROR, {
        let m = multi!(p);
        let mut st = m.state.borrow_mut();
        let Some(multi) = st.multi.as_deref_mut() else {
            return CURLM_INTERNAL_ERROR;
        };
        match opt {
            MAXCONNECTS => multi.set_max_connects(usize::try_from(v).unwrap_or(0)),
            // HTTP/1 only: one connection per transfer and no multiplexing, so these
            // limits have nothing to restrict yet beyond what the engine does.
            PIPELINING | MAX_CONCURRENT_STREAMS => {}
            // A negative limit is no limit, as in curl 8.14.1.
            MAX_TOTAL_CONNECTIONS => multi.set_max_total_connections(v.max(0) as usize),
            MAX_HOST_CONNECTIONS => multi.set_max_host_connections(v.max(0) as usize),
            _ => return CURLM_UNKNOWN_OPTION,
        }
        CURLM_OK
    })
}

/// Typed half of `curl_multi_setopt` for pointer and function options.
#[no_mangle]
pub extern "C" fn oxcurl_multi_setopt_ptr(
    p: *mut MultiHandle,
    opt: c_int,
    v: *mut c_void,
) -> CURLMcode {
    use crate::consts::mopt::*;
    guard!(CURLM_INTERNAL_ERROR, {
        let m = multi!(p);
        match opt {
            SOCKETFUNCTION => {
                // SAFETY: the shim passes CURLMOPT_SOCKETFUNCTION's function pointer as a
                // data pointer of the same size; NULL becomes None.
                let cb = unsafe { std::mem::transmute::<*mut c_void, Option<SocketCb>>(v) };
                m.socket_cb.set(cb);
                let mut st = m.state.borrow_mut();
                let Some(multi) = st.multi.as_deref_mut() else {
                    return CURLM_INTERNAL_ERROR;
                };
                multi.set_socket_events(cb.is_some());
            }
            SOCKETDATA => m.socket_data.set(v),
            TIMERFUNCTION => {
                // SAFETY: as for SOCKETFUNCTION, with curl_multi_timer_callback's signature.
                let cb = unsafe { std::mem::transmute::<*mut c_void, Option<TimerCb>>(v) };
                // curl keeps what it last told: a new callback hears only of changes.
                m.timer_cb.set(cb);
            }
            TIMERDATA => m.timer_data.set(v),
            // Accepted as curl accepts them (a curl built without HTTP/2 too). The callback
            // is never called: the engine does not enable server push (its SETTINGS keep
            // ENABLE_PUSH at 0), so no server pushes a stream to offer.
            PUSHFUNCTION | PUSHDATA => {}
            _ => return CURLM_UNKNOWN_OPTION,
        }
        CURLM_OK
    })
}

/// Typed half of `curl_multi_setopt` for `curl_off_t` options: none supported yet.
#[no_mangle]
pub extern "C" fn oxcurl_multi_setopt_off(p: *mut MultiHandle, _opt: c_int, _v: i64) -> CURLMcode {
    guard!(CURLM_INTERNAL_ERROR, {
        let _m = multi!(p);
        CURLM_UNKNOWN_OPTION
    })
}

/// glibc's `fd_set`: `FD_SETSIZE` (1024) bits.
#[repr(C)]
pub struct FdSet {
    bits: [std::ffi::c_ulong; FD_SETSIZE / (8 * std::mem::size_of::<std::ffi::c_ulong>())],
}
const FD_SETSIZE: usize = 1024;

/// Sets `fd` in a non-NULL set (FD_SET).
///
/// # Safety
/// `set` is NULL or a writable `fd_set`.
unsafe fn fd_set(set: *mut FdSet, fd: usize) {
    if set.is_null() {
        return;
    }
    let w = 8 * std::mem::size_of::<std::ffi::c_ulong>();
    // SAFETY: non-NULL and writable per the caller; fd < FD_SETSIZE is checked by the caller,
    // so the index is in bounds.
    unsafe { (*set).bits[fd / w] |= 1 << (fd % w) };
}

/// `curl_multi_fdset`: adds the descriptors the transfers wait on to the application's
/// sets (never clears them); `max_fd` gets the highest, -1 for none. Descriptors at or above
/// `FD_SETSIZE` cannot be put in an `fd_set` and are left out, as curl does.
#[no_mangle]
pub extern "C" fn curl_multi_fdset(
    p: *mut MultiHandle,
    read: *mut FdSet,
    write: *mut FdSet,
    _exc: *mut FdSet,
    max_fd: *mut c_int,
) -> CURLMcode {
    guard!(CURLM_INTERNAL_ERROR, {
        let m = multi!(p);
        let st = m.state.borrow();
        let Some(multi) = st.multi.as_deref() else {
            return CURLM_INTERNAL_ERROR;
        };
        let mut max = -1;
        for (fd, r, w) in multi.wait_fds() {
            let Ok(i) = usize::try_from(fd) else {
                continue;
            };
            if i >= FD_SETSIZE {
                continue;
            }
            // SAFETY: NULL or the application's writable fd_sets, per curl_multi_fdset(3).
            unsafe {
                if r {
                    fd_set(read, i);
                }
                if w {
                    fd_set(write, i);
                }
            }
            max = max.max(fd);
        }
        if !max_fd.is_null() {
            // SAFETY: a non-NULL `max_fd` points to a writable int.
            unsafe { *max_fd = max };
        }
        CURLM_OK
    })
}
