//! How numbers reach the user's eye: enough digits whatever their size.

/// `v` on a scale reaching `size`: three decimals, or three digits with an exponent when
/// decimals would show too few of them (a colour bar's ticks, the range it spans).
pub fn tick(v: f64, size: f64) -> String {
    if size != 0.0 && !(1e-2..1e4).contains(&size.abs()) {
        format!("{v:.2e}")
    } else {
        format!("{v:.3}")
    }
}

/// A time in seconds: four decimals (`0.2500`), or four digits with an exponent below 0.01 s
/// (`2.000e-5`), so that a run of microseconds does not read `0.0000`.
pub fn seconds(t: f64) -> String {
    if t == 0.0 || t.abs() >= 1e-2 {
        format!("{t:.4}")
    } else {
        format!("{t:.3e}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_times_and_ranges_keep_their_digits() {
        assert_eq!(seconds(0.25), "0.2500");
        assert_eq!(seconds(0.0), "0.0000");
        assert_eq!(seconds(2e-5), "2.000e-5");
        assert_eq!(tick(1.5e-4, 2e-4), "1.50e-4");
        assert_eq!(tick(0.125, 0.5), "0.125");
    }
}
