//! The challenge's answer line from exact per-station aggregates.
//!
//! Everything is in integer tenths of a degree: min and max print as read, the
//! mean is `sum / count` rounded to the nearest tenth with exact ties going up
//! (toward +infinity, as `Math.round` in the reference implementation), and a
//! value that rounds to zero prints `0.0`, never `-0.0`.

/// One station's aggregates, in tenths of a degree.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StationStats {
    /// The name's bytes (UTF-8 in valid inputs).
    pub name: Vec<u8>,
    /// Lowest temperature.
    pub min: i64,
    /// Highest temperature.
    pub max: i64,
    /// Sum of the temperatures.
    pub sum: i128,
    /// Number of measurements (at least 1).
    pub count: i64,
}

/// `sum / count` in tenths, rounded half up (exact ties toward +infinity).
pub fn mean_tenths(sum: i128, count: i64) -> i128 {
    let n = i128::from(count.max(1));
    // floor(sum / n + 1/2) = floor((2 sum + n) / 2n), exact for negative sums too.
    (2 * sum + n).div_euclid(2 * n)
}

/// Appends tenths as `-12.3` / `0.0`.
pub fn push_tenths(out: &mut Vec<u8>, t: i128) {
    if t < 0 {
        out.push(b'-');
    }
    let a = t.unsigned_abs();
    crate::gen::text::push_u64(out, u64::try_from(a / 10).unwrap_or(u64::MAX));
    out.push(b'.');
    out.push(b'0' + (a % 10) as u8);
}

/// The answer line `{name=min/mean/max, ...}` (no trailing newline), stations
/// sorted by the bytes of their names.
pub fn render(stats: &mut [StationStats]) -> Vec<u8> {
    stats.sort_by(|a, b| a.name.cmp(&b.name));
    let mut out = Vec::with_capacity(stats.len() * 24 + 2);
    out.push(b'{');
    for (i, s) in stats.iter().enumerate() {
        if i > 0 {
            out.extend_from_slice(b", ");
        }
        out.extend_from_slice(&s.name);
        out.push(b'=');
        push_tenths(&mut out, i128::from(s.min));
        out.push(b'/');
        push_tenths(&mut out, mean_tenths(s.sum, s.count));
        out.push(b'/');
        push_tenths(&mut out, i128::from(s.max));
    }
    out.push(b'}');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn means_round_half_up_exactly() {
        // 33.6 + 31.7 + 21.9 + 14.6 = 101.8 over 4 = 25.45 -> 25.5 (the official sample).
        assert_eq!(mean_tenths(1018, 4), 255);
        assert_eq!(mean_tenths(5, 4), 1); // 0.125 -> 0.1
        assert_eq!(mean_tenths(-5, 4), -1); // -0.125 -> -0.1
        assert_eq!(mean_tenths(-25, 2), -12); // -1.25 -> -1.2 (tie up)
        assert_eq!(mean_tenths(25, 2), 13); // 1.25 -> 1.3
        assert_eq!(mean_tenths(-1, 2), 0); // -0.05 -> 0.0
        assert_eq!(mean_tenths(-3, 2), -1); // -0.15 -> -0.1
        assert_eq!(mean_tenths(33, 6), 6); // 0.55 -> 0.6 (exact, unlike float division)
        assert_eq!(mean_tenths(-20207, 22), -918); // -91.85 -> -91.8
    }

    #[test]
    fn tenths_print_like_the_challenge() {
        for (t, want) in [
            (0, "0.0"),
            (-3, "-0.3"),
            (999, "99.9"),
            (-999, "-99.9"),
            (50, "5.0"),
        ] {
            let mut b = Vec::new();
            push_tenths(&mut b, t);
            assert_eq!(String::from_utf8(b).unwrap(), want);
        }
    }

    #[test]
    fn never_prints_negative_zero() {
        let mut s = vec![StationStats {
            name: b"a".to_vec(),
            min: 0,
            max: 0,
            sum: -1,
            count: 2,
        }];
        assert_eq!(render(&mut s), b"{a=0.0/0.0/0.0}");
    }

    #[test]
    fn sorts_by_bytes() {
        let st = |n: &str, v: i64| StationStats {
            name: n.as_bytes().to_vec(),
            min: v,
            max: v,
            sum: i128::from(v),
            count: 1,
        };
        let mut s = vec![st("Zürich", 93), st("Abéché", -999), st("Abha", 999)];
        assert_eq!(
            String::from_utf8(render(&mut s)).unwrap(),
            "{Abha=99.9/99.9/99.9, Abéché=-99.9/-99.9/-99.9, Zürich=9.3/9.3/9.3}"
        );
    }
}
