//! Fake clock and seeded ids: two runs of a scenario produce byte-identical
//! traces. Nothing in the runtime reads the wall clock.

/// 2026-01-01T00:00:00Z, the epoch of every simulated session.
pub const EPOCH_MS: u64 = 1_767_225_600_000;

#[derive(Clone, Debug)]
pub struct Clock {
    now_ms: u64,
}

impl Default for Clock {
    fn default() -> Self {
        Clock { now_ms: EPOCH_MS }
    }
}

impl Clock {
    /// Advance one simulated second and return the new time.
    pub fn tick(&mut self) -> u64 {
        self.now_ms += 1_000;
        self.now_ms
    }
    pub fn now(&self) -> u64 {
        self.now_ms
    }
    /// `YYYY-MM-DD HH:MM:SS` (UTC) as used in `System: [ts]` event lines.
    pub fn format(&self) -> String {
        format_utc(self.now_ms)
    }
}

pub fn format_utc(ms: u64) -> String {
    let secs = ms / 1000;
    let (days, rem) = (secs / 86_400, secs % 86_400);
    let (y, m, d) = civil_from_days(days as i64);
    format!("{y:04}-{m:02}-{d:02} {:02}:{:02}:{:02}", rem / 3600, (rem % 3600) / 60, rem % 60)
}

/// `formatUserTime(date, "UTC", "12")` (openclaw dist/date-time-*.mjs, both
/// releases): `Thursday, January 1st, 2026 - 12:00 AM`. The host runs in UTC,
/// and `resolveUserTimeFormat` (2026.9.6 dist/current-time-*.mjs passes no
/// preference; 2026.4.26 current-time-*.js passes `agents.defaults.timeFormat`,
/// unset here) detects the system's clock from Node's default locale (9.6:
/// `Intl.DateTimeFormat().resolvedOptions().hour12`; 4.26: whether 13:00
/// formats with "13"), 12-hour for en-US (no LANG in the gateway's
/// environment; seen on the real 2026.9.6 heartbeat prompt: "12:01 AM").
pub fn format_user_time(ms: u64) -> String {
    const DAYS: [&str; 7] = ["Thursday", "Friday", "Saturday", "Sunday", "Monday", "Tuesday", "Wednesday"];
    const MONTHS: [&str; 12] = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"];
    let secs = ms / 1000;
    let (days, rem) = (secs / 86_400, secs % 86_400);
    let (y, m, d) = civil_from_days(days as i64);
    // 1970-01-01 was a Thursday.
    let weekday = DAYS[(days % 7) as usize];
    let suffix = match (d % 10, d % 100) {
        (_, 11..=13) => "th",
        (1, _) => "st",
        (2, _) => "nd",
        (3, _) => "rd",
        _ => "th",
    };
    let (h, min) = (rem / 3600, (rem % 3600) / 60);
    let (h12, period) = (if h % 12 == 0 { 12 } else { h % 12 }, if h < 12 { "AM" } else { "PM" });
    format!("{weekday}, {} {d}{suffix}, {y} - {h12}:{min:02} {period}", MONTHS[(m - 1) as usize])
}

/// `YYYY-MM-DD HH:MM UTC` (`new Date(ms).toISOString().replace("T"," ").slice(0,16) + " UTC"`).
pub fn format_utc_minutes(ms: u64) -> String {
    format!("{} UTC", &format_utc(ms)[..16])
}

// Howard Hinnant's days-to-civil algorithm.
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (if m <= 2 { y + 1 } else { y }, m, d)
}

/// Seeded, per-kind counters: `sess-0001`, `toolu_0001`, `entry-0001`, … .
#[derive(Clone, Debug, Default)]
pub struct Ids {
    counters: std::collections::BTreeMap<&'static str, u64>,
}

impl Ids {
    pub fn next(&mut self, kind: &'static str) -> String {
        let n = self.counters.entry(kind).or_insert(0);
        *n += 1;
        match kind {
            "toolu" => format!("toolu_{:04}", n),
            _ => format!("{kind}-{:04}", n),
        }
    }

    /// The next number of `kind` (from 1), for ids formatted elsewhere.
    pub fn number(&mut self, kind: &'static str) -> u64 {
        let n = self.counters.entry(kind).or_insert(0);
        *n += 1;
        *n
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn epoch_formats() {
        assert_eq!(format_utc(EPOCH_MS), "2026-01-01 00:00:00");
        assert_eq!(format_utc(EPOCH_MS + 86_400_000 * 59 + 3_661_000), "2026-03-01 01:01:01");
    }
    #[test]
    fn user_time_is_cron_style() {
        assert_eq!(format_user_time(EPOCH_MS), "Thursday, January 1st, 2026 - 12:00 AM");
        assert_eq!(format_user_time(EPOCH_MS + 86_400_000 * 21 + 3_661_000), "Thursday, January 22nd, 2026 - 1:01 AM");
        assert_eq!(format_user_time(EPOCH_MS + 86_400_000 * 11), "Monday, January 12th, 2026 - 12:00 AM");
        assert_eq!(format_user_time(EPOCH_MS + 13 * 3_600_000 + 5 * 60_000), "Thursday, January 1st, 2026 - 1:05 PM");
        assert_eq!(format_user_time(EPOCH_MS + 12 * 3_600_000), "Thursday, January 1st, 2026 - 12:00 PM");
        assert_eq!(format_utc_minutes(EPOCH_MS + 61_000), "2026-01-01 00:01 UTC");
    }
    #[test]
    fn ids_are_per_kind() {
        let mut ids = Ids::default();
        assert_eq!(ids.next("sess"), "sess-0001");
        assert_eq!(ids.next("toolu"), "toolu_0001");
        assert_eq!(ids.next("sess"), "sess-0002");
    }
}
