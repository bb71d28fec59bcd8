//! stderr capture: a bounded ring buffer fed by a background task, so a
//! flooding engine never blocks on a full pipe and memory stays bounded.
//! Offsets are absolute byte counts, so a call can ask for "what arrived since
//! I started" and flood detection needs no extra state.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

use tokio::io::{AsyncRead, AsyncReadExt};

#[derive(Debug, Default)]
pub struct StderrBuf {
    keep: usize,
    data: VecDeque<u8>,
    /// Total bytes ever received.
    pub total: u64,
}

impl StderrBuf {
    pub fn new(keep: usize) -> Self {
        StderrBuf { keep, data: VecDeque::with_capacity(keep.min(64 * 1024)), total: 0 }
    }

    fn push(&mut self, bytes: &[u8]) {
        self.total += bytes.len() as u64;
        let bytes = if bytes.len() > self.keep { &bytes[bytes.len() - self.keep..] } else { bytes };
        let overflow = (self.data.len() + bytes.len()).saturating_sub(self.keep);
        self.data.drain(..overflow.min(self.data.len()));
        self.data.extend(bytes);
    }

    /// Text received since absolute offset `from` (as much as is still kept).
    pub fn since(&self, from: u64) -> String {
        let start_of_buf = self.total - self.data.len() as u64;
        let skip = from.saturating_sub(start_of_buf) as usize;
        let bytes: Vec<u8> = self.data.iter().skip(skip).copied().collect();
        let mut s = String::from_utf8_lossy(&bytes).into_owned();
        if from < start_of_buf {
            s.insert_str(0, "[… earlier stderr dropped …]\n");
        }
        s
    }

    pub fn tail(&self) -> String {
        self.since(0)
    }
}

pub type Shared = Arc<Mutex<StderrBuf>>;

pub fn spawn_reader<R: AsyncRead + Unpin + Send + 'static>(mut r: R, buf: Shared) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        let mut chunk = vec![0u8; 8192];
        loop {
            match r.read(&mut chunk).await {
                Ok(0) | Err(_) => break,
                Ok(n) => buf.lock().expect("stderr lock").push(&chunk[..n]),
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ring_keeps_the_tail_and_offsets_stay_absolute() {
        let mut b = StderrBuf::new(8);
        b.push(b"hello ");
        let mark = b.total;
        b.push(b"world!!");
        assert_eq!(b.total, 13);
        assert_eq!(b.since(mark), "world!!");
        assert!(b.since(0).ends_with("o world!!") || b.since(0).contains("dropped"));
        b.push(&[b'x'; 100]);
        assert_eq!(b.data.len(), 8);
    }
}
