//! Pausing a transfer (`curl_easy_pause`, `CURL_WRITEFUNC_PAUSE`, `CURL_READFUNC_PAUSE`):
//! which directions are held, shared by the application's handle and its running transfer.
//!
//! The application sets the bits from anywhere on the thread driving the transfer, inside a
//! callback or between runs; setting them wakes the transfer so the multi runs it again.
//! The transfer only looks at the bits: a paused receive stops reading the socket and keeps
//! what its callbacks refused, a paused send stops asking for upload data.

use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::{Arc, Mutex};
use std::task::Waker;

/// Receiving is paused (`CURLPAUSE_RECV`).
pub const RECV: u8 = 1;
/// Sending is paused (`CURLPAUSE_SEND`).
pub const SEND: u8 = 4;

/// The pause state of one handle; clones share it.
#[derive(Clone, Debug, Default)]
pub struct Pause(Arc<Inner>);

#[derive(Debug, Default)]
struct Inner {
    bits: AtomicU8,
    /// Wakes the running transfer (set when it starts).
    waker: Mutex<Option<Waker>>,
}

impl Pause {
    /// The paused directions ([`RECV`], [`SEND`]).
    pub fn get(&self) -> u8 {
        self.0.bits.load(Ordering::Relaxed)
    }

    /// Pause exactly the directions in `bits`; a direction let go wakes the transfer.
    pub fn set(&self, bits: u8) {
        let old = self.0.bits.swap(bits & (RECV | SEND), Ordering::Relaxed);
        if old & !bits != 0 {
            self.wake();
        }
    }

    /// Pause the directions in `bits` besides those already paused (a callback's refusal).
    pub fn add(&self, bits: u8) {
        self.0.bits.fetch_or(bits, Ordering::Relaxed);
    }

    /// A new transfer starts with nothing paused, woken by `waker`.
    pub fn start(&self, waker: &Waker) {
        self.0.bits.store(0, Ordering::Relaxed);
        *self.0.waker.lock().unwrap_or_else(|p| p.into_inner()) = Some(waker.clone());
    }

    /// The transfer ended: nothing to wake any more.
    pub fn stop(&self) {
        self.0.bits.store(0, Ordering::Relaxed);
        *self.0.waker.lock().unwrap_or_else(|p| p.into_inner()) = None;
    }

    /// Is a transfer running with this state?
    pub fn running(&self) -> bool {
        self.0
            .waker
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .is_some()
    }

    fn wake(&self) {
        if let Some(w) = self
            .0
            .waker
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .as_ref()
        {
            w.wake_by_ref();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicUsize;
    use std::task::Wake;

    struct Count(AtomicUsize);
    impl Wake for Count {
        fn wake(self: Arc<Self>) {
            self.0.fetch_add(1, Ordering::Relaxed);
        }
    }

    #[test]
    fn letting_a_direction_go_wakes_the_transfer_pausing_does_not() {
        let c = Arc::new(Count(AtomicUsize::new(0)));
        let p = Pause::default();
        p.start(&Waker::from(c.clone()));
        p.set(RECV | SEND);
        assert_eq!(c.0.load(Ordering::Relaxed), 0);
        p.set(RECV);
        assert_eq!(c.0.load(Ordering::Relaxed), 1);
        assert_eq!(p.get(), RECV);
        p.add(SEND);
        assert_eq!(p.get(), RECV | SEND);
        p.set(0);
        assert_eq!(c.0.load(Ordering::Relaxed), 2);
        p.stop();
        assert!(!p.running());
    }
}
