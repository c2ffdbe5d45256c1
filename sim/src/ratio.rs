//! Probabilities as integer ratios (`3/1000`): exact, printable with the seed, and read
//! back the same on every machine, which floating point would not promise.

use serde::{Deserialize, Serialize};
use std::fmt;

/// `num` chances in `den`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct Ratio {
    /// Chances for.
    pub num: u32,
    /// Chances in all (at least 1).
    pub den: u32,
}

impl Ratio {
    /// Never.
    pub const NEVER: Ratio = Ratio { num: 0, den: 1 };

    /// `num/den`, with `num` capped at `den` and `den` at least 1.
    pub const fn new(num: u32, den: u32) -> Ratio {
        let den = if den == 0 { 1 } else { den };
        let num = if num > den { den } else { num };
        Ratio { num, den }
    }

    /// Whether it can ever happen.
    pub fn is_never(self) -> bool {
        self.num == 0
    }

    /// Parses `N/D`.
    pub fn parse(text: &str) -> Result<Ratio, String> {
        let bad = || format!("'{text}': expected a ratio N/D with 0 <= N <= D and D >= 1");
        let (n, d) = text.split_once('/').ok_or_else(bad)?;
        let (n, d): (u32, u32) = (
            n.trim().parse().map_err(|_| bad())?,
            d.trim().parse().map_err(|_| bad())?,
        );
        if d == 0 || n > d {
            return Err(bad());
        }
        Ok(Ratio { num: n, den: d })
    }
}

impl Default for Ratio {
    fn default() -> Self {
        Ratio::NEVER
    }
}

impl fmt::Display for Ratio {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.num, self.den)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_prints() {
        assert_eq!(Ratio::parse("3/100").unwrap().to_string(), "3/100");
        assert!(Ratio::parse("3/0").is_err());
        assert!(Ratio::parse("5/4").is_err());
        assert!(Ratio::parse("x").is_err());
        assert_eq!(Ratio::new(9, 4), Ratio::new(4, 4));
    }
}
