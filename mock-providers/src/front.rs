//! `serve-provider`'s front door. wiremock reads a whole request body before
//! any responder sees it, so a 2 GB body would cost 2 GB before the 413. This
//! front reads only the request head: a `Content-Length` over the provider's
//! limit ([`crate::shape::body_limit`]) is answered with the provider's 413
//! ([`crate::shape::too_large`]) without reading the body; any other request
//! is passed to the mock, one request per connection (`Connection: close`),
//! and never more than the limit of body bytes is forwarded (a chunked body
//! that runs past it is cut off with the connection).

use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

use crate::shape::{body_limit, too_large};
use crate::Provider;

/// Largest request head accepted (bytes); real APIs sit behind proxies with
/// similar limits and answer 431.
pub const HEAD_LIMIT: usize = 64 * 1024;

/// Requests handled at once. The mock holds a body several times over while
/// it parses and validates it (~5× a 30 MB body), so memory is bounded by
/// this × the body limit; later connections wait their turn, unread.
pub const MAX_IN_FLIGHT: usize = 4;

/// Request bytes after which the mock forgets what wiremock kept of them
/// ([`crate::server::MockProvider::forget_requests`]).
pub const FORGET_AFTER_BYTES: u64 = 64 << 20;

/// Accept connections on `public` until the task is dropped; pass them to the
/// mock at `backend`, at most [`MAX_IN_FLIGHT`] at a time. Once
/// [`FORGET_AFTER_BYTES`] have gone through, the first moment no request is
/// in flight the mock forgets them: memory stays bounded however long the
/// server runs.
pub async fn run(public: TcpListener, backend: SocketAddr, provider: Provider, mock: crate::server::MockProvider) {
    let slots = Arc::new(tokio::sync::Semaphore::new(MAX_IN_FLIGHT));
    let since = Arc::new(AtomicU64::new(0));
    loop {
        let Ok((conn, _)) = public.accept().await else { continue };
        let (slots, since, mock) = (slots.clone(), since.clone(), mock.clone());
        tokio::spawn(async move {
            let Ok(slot) = slots.clone().acquire_owned().await else { return };
            let bytes = handle(conn, backend, provider).await.unwrap_or(0);
            drop(slot);
            if since.fetch_add(bytes, Ordering::SeqCst) + bytes > FORGET_AFTER_BYTES {
                // Only when idle: a held request may wait for another one.
                if let Ok(all) = slots.try_acquire_many(MAX_IN_FLIGHT as u32) {
                    since.store(0, Ordering::SeqCst);
                    mock.forget_requests().await;
                    drop(all);
                    release_freed_memory();
                }
            }
        });
    }
}

/// Give the heap's free pages back to the system once a request is done:
/// glibc keeps what a 30 MB body cost, so ten such requests left ~420 MB
/// resident on an idle server.
fn release_freed_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim only returns free heap memory to the kernel.
    unsafe {
        libc::malloc_trim(0);
    }
}

fn header_end(b: &[u8]) -> Option<usize> {
    b.windows(4).position(|w| w == b"\r\n\r\n").map(|i| i + 4)
}

fn response(status: u16, reason: &str, body: &str) -> String {
    format!("HTTP/1.1 {status} {reason}\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}", body.len())
}

/// A rejection as the mock itself sends it: Bedrock's errors carry their
/// type in `x-amzn-ErrorType` (server.rs `Validating`).
fn rejection(provider: Provider, r: &crate::Rejection) -> String {
    let reason = if r.status == 413 { "Payload Too Large" } else { "Bad Request" };
    let head = response(r.status, reason, &r.body.to_string());
    if provider == Provider::Bedrock {
        head.replacen("\r\n", "\r\nx-amzn-ErrorType: ValidationException\r\n", 1)
    } else {
        head
    }
}

/// One request; returns the body bytes passed to the mock.
async fn handle(mut client: TcpStream, backend: SocketAddr, provider: Provider) -> std::io::Result<u64> {
    let mut buf = Vec::with_capacity(4096);
    let end = loop {
        let mut chunk = [0u8; 4096];
        let n = client.read(&mut chunk).await?;
        if n == 0 {
            return Ok(0);
        }
        buf.extend_from_slice(&chunk[..n]);
        if let Some(end) = header_end(&buf) {
            break end;
        }
        if buf.len() > HEAD_LIMIT {
            let body = r#"{"error":{"message":"Request header fields too large"}}"#;
            return client.write_all(response(431, "Request Header Fields Too Large", body).as_bytes()).await.map(|()| 0);
        }
    };
    let head = String::from_utf8_lossy(&buf[..end]).into_owned();
    let mut length: Option<usize> = None;
    let mut kept = Vec::new();
    for (i, line) in head.split("\r\n").enumerate() {
        let lower = line.to_ascii_lowercase();
        if i > 0 && lower.starts_with("connection:") {
            continue;
        }
        if let Some(v) = lower.strip_prefix("content-length:") {
            length = v.trim().parse().ok();
        }
        if !line.is_empty() {
            kept.push(line.to_string());
        }
    }
    let limit = body_limit(provider);
    if let Some(len) = length.filter(|l| *l > limit) {
        let r = too_large(provider, len);
        return client.write_all(rejection(provider, &r).as_bytes()).await.map(|()| 0);
    }
    let mut upstream = TcpStream::connect(backend).await?;
    let mut out = kept.join("\r\n");
    out.push_str("\r\nconnection: close\r\n\r\n");
    upstream.write_all(out.as_bytes()).await?;
    // Body bytes that arrived with the head, then the rest, capped.
    let already = &buf[end..];
    let budget = length.unwrap_or(limit).min(limit);
    let first = &already[..already.len().min(budget)];
    upstream.write_all(first).await?;
    let (mut cr, mut cw) = client.into_split();
    let (mut ur, mut uw) = upstream.into_split();
    let rest = (budget - first.len()) as u64;
    // A body without Content-Length (chunked) that reaches the limit is
    // answered here as too large: the mock would wait for its end for ever,
    // holding the connection and what it buffered.
    let (over_tx, over_rx) = tokio::sync::oneshot::channel::<u64>();
    let chunked = length.is_none();
    let sent_first = first.len() as u64;
    let up = tokio::spawn(async move {
        let n = tokio::io::copy(&mut (&mut cr).take(rest), &mut uw).await.unwrap_or(0);
        if chunked && n == rest {
            let _ = over_tx.send(sent_first + n);
        }
        // Keep the mock's read side open: hyper drops a response when its
        // client half-closes (`half_close` is off by default).
        std::future::pending::<()>().await;
        drop(uw);
    });
    // The answer ends the exchange (the mock closes after one response); a
    // client still sending is cut off.
    let over = tokio::select! {
        _ = tokio::io::copy(&mut ur, &mut cw) => None,
        n = over_rx => n.ok(),
    };
    if let Some(n) = over {
        // At least this much arrived; the true size is unknown (not read).
        let r = too_large(provider, n as usize + 1);
        let _ = cw.write_all(rejection(provider, &r).as_bytes()).await;
    }
    let _ = cw.shutdown().await;
    up.abort();
    // At most this much went to the mock (a chunked body: up to the limit).
    Ok(budget as u64)
}
