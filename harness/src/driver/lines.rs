//! stdout framing: newline-delimited lines with a size cap, read by a
//! background task. Oversized lines are discarded while reading (never
//! buffered whole); invalid UTF-8 and a partial last line are reported as such.

use tokio::io::{AsyncBufReadExt, AsyncRead, BufReader};
use tokio::sync::mpsc;

#[derive(Debug)]
pub enum LineEvent {
    Line(String),
    InvalidUtf8,
    Oversized,
    /// EOF after bytes without a newline.
    Partial(String),
    Eof,
}

pub fn spawn_reader<R: AsyncRead + Unpin + Send + 'static>(r: R, max: usize) -> mpsc::Receiver<LineEvent> {
    let (tx, rx) = mpsc::channel(256);
    tokio::spawn(async move {
        let mut r = BufReader::with_capacity(256 * 1024, r);
        let mut line: Vec<u8> = Vec::new();
        let mut discarding = false;
        loop {
            let (consumed, done_line, eof) = {
                let buf = match r.fill_buf().await {
                    Ok(b) => b,
                    Err(_) => &[][..],
                };
                if buf.is_empty() {
                    (0, false, true)
                } else {
                    match memchr(buf) {
                        Some(i) => {
                            if !discarding {
                                line.extend_from_slice(&buf[..i]);
                            }
                            (i + 1, true, false)
                        }
                        None => {
                            if !discarding {
                                line.extend_from_slice(buf);
                            }
                            (buf.len(), false, false)
                        }
                    }
                }
            };
            r.consume(consumed);
            if !discarding && line.len() > max {
                discarding = true;
                line = Vec::new();
            }
            if eof {
                let ev = if discarding {
                    LineEvent::Oversized
                } else if line.is_empty() {
                    LineEvent::Eof
                } else {
                    LineEvent::Partial(String::from_utf8_lossy(&line).into_owned())
                };
                let _ = tx.send(ev).await;
                if !matches!(ev_kind_eof(&line, discarding), true) {
                    let _ = tx.send(LineEvent::Eof).await;
                }
                return;
            }
            if done_line {
                let ev = if discarding {
                    LineEvent::Oversized
                } else {
                    match String::from_utf8(std::mem::take(&mut line)) {
                        Ok(s) => LineEvent::Line(s),
                        Err(_) => LineEvent::InvalidUtf8,
                    }
                };
                discarding = false;
                line = Vec::new();
                if tx.send(ev).await.is_err() {
                    return;
                }
            }
        }
    });
    rx
}

fn ev_kind_eof(line: &[u8], discarding: bool) -> bool {
    line.is_empty() && !discarding
}

fn memchr(b: &[u8]) -> Option<usize> {
    b.iter().position(|&c| c == b'\n')
}
