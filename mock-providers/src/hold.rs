//! Holding a model answer until the driver says release.
//!
//! A real-host step such as "steer a message in before model call 2" or "the
//! user aborts while model call 2 is in flight" needs the host to be *inside*
//! a given model call when the driver acts. A fixed delay would race; a hold
//! does not: the scripted reply carries a hold id ([`crate::server::Reply::hold`]),
//! the responder tags its answer with [`HOLD_HEADER`], and this front door,
//! which sits between the host and the mock, keeps that answer back until
//! the driver releases it. The driver's sequence is: wait until hold N has
//! arrived ([`WAIT_PATH`]), do the host action (a steer `chat.send`, a
//! `chat.abort`) and wait for its acknowledgement, then release N
//! ([`RELEASE_PATH`]). Nothing depends on timing.
//!
//! The front passes every other request through untouched (one request per
//! connection, `connection: close`, as [`crate::front`] does), so it can
//! stand in front of the mock for a whole real-host run.

use std::collections::BTreeSet;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{json, Value};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::Notify;

/// Response header naming the hold an answer waits for (set by the responder).
pub const HOLD_HEADER: &str = "x-clawspec-hold";
/// `POST {"hold": n, "timeoutMs": t}`: answers once the request held by `n`
/// has reached the mock (200), or 408 after `t` ms.
pub const WAIT_PATH: &str = "/__clawspec/hold/wait";
/// `POST {"hold": n}`: the answer held by `n` goes out (now, or on arrival).
pub const RELEASE_PATH: &str = "/__clawspec/hold/release";
/// `POST {"hold": n}` from something other than a model call that must wait
/// for the driver (a tool still running while the user steers): counts as the
/// arrival of `n` and answers on its release.
pub const PAUSE_PATH: &str = "/__clawspec/hold/pause";

/// Longest a held answer waits for its release: a driver that died must not
/// leave the host's model call hanging forever.
pub const MAX_HOLD: Duration = Duration::from_secs(300);

#[derive(Default)]
struct Holds {
    arrived: BTreeSet<u64>,
    released: BTreeSet<u64>,
    /// Held answers written to the host, in the order they went out.
    sent: Vec<u64>,
}

#[derive(Default)]
struct Shared {
    holds: Mutex<Holds>,
    changed: Notify,
}

impl Shared {
    /// Wait until `done` holds over the state, or `timeout`.
    async fn until(&self, timeout: Duration, done: impl Fn(&Holds) -> bool) -> bool {
        let wait = async {
            loop {
                let notified = self.changed.notified();
                tokio::pin!(notified);
                notified.as_mut().enable();
                if done(&self.holds.lock().unwrap()) {
                    return;
                }
                notified.await;
            }
        };
        tokio::time::timeout(timeout, wait).await.is_ok()
    }

    fn update(&self, f: impl FnOnce(&mut Holds)) {
        f(&mut self.holds.lock().unwrap());
        self.changed.notify_waiters();
    }
}

/// The hold front door: a loopback listener in front of a mock at `backend`.
pub struct HoldFront {
    addr: SocketAddr,
    shared: Arc<Shared>,
    task: tokio::task::JoinHandle<()>,
}

impl HoldFront {
    pub async fn start(backend: SocketAddr) -> std::io::Result<HoldFront> {
        let listener = TcpListener::bind(("127.0.0.1", 0)).await?;
        let addr = listener.local_addr()?;
        let shared = Arc::new(Shared::default());
        let s = shared.clone();
        let task = tokio::spawn(async move {
            loop {
                let Ok((conn, _)) = listener.accept().await else { continue };
                let s = s.clone();
                tokio::spawn(async move {
                    let _ = handle(conn, backend, s).await;
                });
            }
        });
        Ok(HoldFront { addr, shared, task })
    }

    /// Base URI the host talks to (`http://127.0.0.1:PORT`).
    pub fn uri(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Held answers sent so far, in order.
    pub fn sent(&self) -> Vec<u64> {
        self.shared.holds.lock().unwrap().sent.clone()
    }
}

impl Drop for HoldFront {
    fn drop(&mut self) {
        self.task.abort();
    }
}

fn header_end(b: &[u8]) -> Option<usize> {
    b.windows(4).position(|w| w == b"\r\n\r\n").map(|i| i + 4)
}

fn answer(status: u16, body: &Value) -> String {
    let body = body.to_string();
    let reason = if status == 200 { "OK" } else { "Error" };
    format!("HTTP/1.1 {status} {reason}\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}", body.len())
}

/// The hold id a response head names, if any.
fn hold_of(head: &str) -> Option<u64> {
    head.split("\r\n").find_map(|l| l.split_once(':').filter(|(k, _)| k.trim().eq_ignore_ascii_case(HOLD_HEADER)).and_then(|(_, v)| v.trim().parse().ok()))
}

async fn read_head(conn: &mut TcpStream) -> std::io::Result<Option<(Vec<u8>, usize)>> {
    let mut buf = Vec::with_capacity(4096);
    loop {
        let mut chunk = [0u8; 4096];
        let n = conn.read(&mut chunk).await?;
        if n == 0 {
            return Ok(None);
        }
        buf.extend_from_slice(&chunk[..n]);
        if let Some(end) = header_end(&buf) {
            return Ok(Some((buf, end)));
        }
        if buf.len() > crate::front::HEAD_LIMIT {
            return Ok(None);
        }
    }
}

fn content_length(head: &str) -> usize {
    head.split("\r\n").find_map(|l| l.split_once(':').filter(|(k, _)| k.trim().eq_ignore_ascii_case("content-length")).and_then(|(_, v)| v.trim().parse().ok())).unwrap_or(0)
}

async fn handle(mut client: TcpStream, backend: SocketAddr, shared: Arc<Shared>) -> std::io::Result<()> {
    let Some((buf, end)) = read_head(&mut client).await? else { return Ok(()) };
    let head = String::from_utf8_lossy(&buf[..end]).into_owned();
    let target = head.split(' ').nth(1).unwrap_or("");
    if [WAIT_PATH, RELEASE_PATH, PAUSE_PATH].contains(&target) {
        let mut body = buf[end..].to_vec();
        let want = content_length(&head);
        while body.len() < want {
            let mut chunk = vec![0u8; want - body.len()];
            let n = client.read(&mut chunk).await?;
            if n == 0 {
                break;
            }
            body.extend_from_slice(&chunk[..n]);
        }
        let reply = control(target, &body, &shared).await;
        return client.write_all(reply.as_bytes()).await;
    }
    // Pass through: the head without its connection header, one exchange per connection.
    let mut kept: Vec<&str> = head.split("\r\n").enumerate().filter(|(i, l)| !l.is_empty() && (*i == 0 || !l.to_ascii_lowercase().starts_with("connection:"))).map(|(_, l)| l).collect();
    kept.push("connection: close");
    let mut upstream = TcpStream::connect(backend).await?;
    upstream.write_all(format!("{}\r\n\r\n", kept.join("\r\n")).as_bytes()).await?;
    upstream.write_all(&buf[end..]).await?;
    let (mut cr, mut cw) = client.into_split();
    let (mut ur, mut uw) = upstream.into_split();
    let up = tokio::spawn(async move {
        let _ = tokio::io::copy(&mut cr, &mut uw).await;
        // hyper drops a response when its client half-closes; keep it open.
        std::future::pending::<()>().await;
        drop(uw);
    });
    let mut response = Vec::new();
    let _ = ur.read_to_end(&mut response).await;
    up.abort();
    let head_len = header_end(&response).unwrap_or(response.len());
    if let Some(id) = hold_of(&String::from_utf8_lossy(&response[..head_len])) {
        shared.update(|h| {
            h.arrived.insert(id);
        });
        shared.until(MAX_HOLD, |h| h.released.contains(&id)).await;
        shared.update(|h| h.sent.push(id));
    }
    cw.write_all(&response).await?;
    cw.shutdown().await
}

async fn control(target: &str, body: &[u8], shared: &Shared) -> String {
    let Some(id) = serde_json::from_slice::<Value>(body).ok().and_then(|v| v["hold"].as_u64().map(|id| (id, v["timeoutMs"].as_u64()))) else {
        return answer(400, &json!({"error": "expected {\"hold\": n}"}));
    };
    let (id, timeout_ms) = id;
    if target == RELEASE_PATH {
        shared.update(|h| {
            h.released.insert(id);
        });
        return answer(200, &json!({"hold": id, "released": true}));
    }
    if target == PAUSE_PATH {
        shared.update(|h| {
            h.arrived.insert(id);
        });
        let released = shared.until(MAX_HOLD, |h| h.released.contains(&id)).await;
        shared.update(|h| h.sent.push(id));
        return answer(if released { 200 } else { 408 }, &json!({"hold": id, "released": released}));
    }
    let timeout = Duration::from_millis(timeout_ms.unwrap_or(60_000));
    if shared.until(timeout, |h| h.arrived.contains(&id)).await {
        answer(200, &json!({"hold": id, "arrived": true}))
    } else {
        answer(408, &json!({"hold": id, "arrived": false, "error": format!("the held model call {id} did not arrive within {} ms", timeout.as_millis())}))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::server::{MockProvider, Reply};
    use crate::Provider;

    fn addr(uri: &str) -> SocketAddr {
        uri.trim_start_matches("http://").parse().unwrap()
    }

    async fn post(url: String, body: Value) -> (u16, Value) {
        tokio::task::spawn_blocking(move || crate::client::post_json(&url, &body, &[]).unwrap()).await.unwrap()
    }

    fn ask(front: &HoldFront) -> tokio::task::JoinHandle<(u16, Value)> {
        let url = format!("{}{}", front.uri(), Provider::Anthropic.path());
        tokio::spawn(post(url, json!({"model":"m","max_tokens":16,"messages":[{"role":"user","content":"hi"}]})))
    }

    fn text(v: &(u16, Value)) -> &str {
        v.1["content"][0]["text"].as_str().unwrap_or_default()
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_held_answer_is_not_sent_before_release_and_holds_release_in_order() {
        let script = vec![
            Reply { text: "first".into(), hold: Some(1), ..Default::default() },
            Reply { text: "second".into(), hold: Some(2), ..Default::default() },
            Reply { text: "free".into(), ..Default::default() },
        ];
        let mock = MockProvider::start_scripted(Provider::Anthropic, Default::default(), script).await;
        let front = HoldFront::start(addr(&mock.uri())).await.unwrap();
        let control = |path: &str, body: Value| post(format!("{}{path}", front.uri()), body);

        let first = ask(&front);
        assert_eq!(control(WAIT_PATH, json!({"hold": 1})).await.0, 200, "hold 1 arrived");
        let second = ask(&front);
        assert_eq!(control(WAIT_PATH, json!({"hold": 2})).await.0, 200, "hold 2 arrived");
        // An unheld call passes while both are held.
        let free = ask(&front).await.unwrap();
        assert_eq!(text(&free), "free");
        assert!(!first.is_finished() && !second.is_finished(), "nothing held went out before its release");
        assert!(front.sent().is_empty());

        control(RELEASE_PATH, json!({"hold": 2})).await;
        let second = second.await.unwrap();
        assert_eq!(text(&second), "second");
        assert!(!first.is_finished(), "releasing 2 does not release 1");
        control(RELEASE_PATH, json!({"hold": 1})).await;
        assert_eq!(text(&first.await.unwrap()), "first");
        assert_eq!(front.sent(), [2, 1], "held answers go out in release order");
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_pause_counts_as_arrival_and_answers_on_release() {
        let mock = MockProvider::start_scripted(Provider::Anthropic, Default::default(), vec![]).await;
        let front = HoldFront::start(addr(&mock.uri())).await.unwrap();
        let paused = tokio::spawn(post(format!("{}{PAUSE_PATH}", front.uri()), json!({"hold": 3})));
        assert_eq!(post(format!("{}{WAIT_PATH}", front.uri()), json!({"hold": 3})).await.0, 200, "the pause arrived");
        assert!(!paused.is_finished(), "a pause waits for its release");
        post(format!("{}{RELEASE_PATH}", front.uri()), json!({"hold": 3})).await;
        assert_eq!(paused.await.unwrap().1["released"], true);
        assert_eq!(front.sent(), [3]);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_release_before_arrival_lets_the_answer_straight_through_and_a_missing_call_times_out() {
        let mock = MockProvider::start_scripted(Provider::Anthropic, Default::default(), vec![Reply { text: "early".into(), hold: Some(7), ..Default::default() }]).await;
        let front = HoldFront::start(addr(&mock.uri())).await.unwrap();
        assert_eq!(post(format!("{}{RELEASE_PATH}", front.uri()), json!({"hold": 7})).await.0, 200);
        assert_eq!(text(&ask(&front).await.unwrap()), "early");
        let (status, body) = post(format!("{}{WAIT_PATH}", front.uri()), json!({"hold": 8, "timeoutMs": 50})).await;
        assert_eq!((status, body["arrived"].as_bool()), (408, Some(false)));
        assert_eq!(post(format!("{}{WAIT_PATH}", front.uri()), json!({"nothing": 1})).await.0, 400);
    }
}
