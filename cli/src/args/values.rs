//! The value parsers clap calls for flags whose values have a syntax or a range of their
//! own (`--threads 1..=64`, `--timeout` in seconds, `--seeds A..B`, `--shard I/N`, ...).
//! Each returns the one-line reason a value is refused; clap puts it after the flag's
//! name, so the message says which flag and which value.

use sharetxn_model::design::DESIGN_NAMES;
use sharetxn_model::world::scenario::SCENARIO_NAMES;
use sharetxn_properties::Strategy;
use sharetxn_sim::seeds::{SeedRange, Shard};
use std::path::PathBuf;
use std::str::FromStr;
use std::time::Duration;

/// The most checker threads accepted.
pub const MAX_THREADS: usize = 64;

/// A whole number.
fn number<T: FromStr>(value: &str) -> Result<T, String> {
    value
        .parse()
        .map_err(|_| "expected a whole number".to_string())
}

/// A thread count in `1..=MAX_THREADS`.
pub fn thread_count(value: &str) -> Result<usize, String> {
    let n = number::<usize>(value)?;
    if !(1..=MAX_THREADS).contains(&n) {
        return Err(format!("expected 1 to {MAX_THREADS}"));
    }
    Ok(n)
}

/// A count that must be at least 1.
pub fn at_least_one(value: &str) -> Result<u64, String> {
    match number::<u64>(value)? {
        0 => Err("must be at least 1".into()),
        n => Ok(n),
    }
}

/// Any whole number (`--max-depth`, `--search-states`).
pub fn whole(value: &str) -> Result<u64, String> {
    number(value)
}

/// A positive number of seconds, possibly fractional.
pub fn seconds(value: &str) -> Result<Duration, String> {
    let bad = || "expected a number of seconds above 0".to_string();
    let secs: f64 = value.parse().map_err(|_| bad())?;
    if secs.is_nan() || secs <= 0.0 {
        return Err(bad());
    }
    Duration::try_from_secs_f64(secs).map_err(|_| bad())
}

/// `bfs` or `dfs`.
pub fn strategy(value: &str) -> Result<Strategy, String> {
    match value {
        "bfs" => Ok(Strategy::Bfs),
        "dfs" => Ok(Strategy::Dfs),
        _ => Err("expected bfs or dfs".into()),
    }
}

/// A directory or file name that is not empty.
pub fn path(value: &str) -> Result<PathBuf, String> {
    if value.is_empty() {
        return Err("needs a file or directory name".into());
    }
    Ok(PathBuf::from(value))
}

/// A host name or address that is not empty.
pub fn host(value: &str) -> Result<String, String> {
    if value.is_empty() {
        return Err("needs a host name or address".into());
    }
    Ok(value.to_string())
}

/// A TCP port other than 0.
pub fn port(value: &str) -> Result<u16, String> {
    number::<u16>(value)
        .ok()
        .filter(|n| *n > 0)
        .ok_or_else(|| "expected 1 to 65535".to_string())
}

/// `--max-traces`: a count of traces per violated property (0: none) or `all`.
pub fn trace_limit(value: &str) -> Result<sharetxn_sim::TraceLimit, String> {
    value.parse()
}

/// `A..B`, half-open, `A < B`.
pub fn seeds(value: &str) -> Result<SeedRange, String> {
    SeedRange::parse(value).map_err(|e| strip_flag(&e, "--seeds"))
}

/// `I/N`, `0 <= I < N`.
pub fn shard(value: &str) -> Result<Shard, String> {
    Shard::parse(value).map_err(|e| strip_flag(&e, "--shard"))
}

/// The simulator's messages start with the flag and value, which clap already names.
fn strip_flag(message: &str, flag: &str) -> String {
    match message.strip_prefix(flag) {
        Some(rest) => rest
            .split_once(": ")
            .map_or(rest, |(_, why)| why)
            .to_string(),
        None => message.to_string(),
    }
}

/// Names the library knows (`--designs a,b`), kept in the library's order.
#[derive(Clone, Debug)]
pub struct Names(pub Vec<&'static str>);

/// Comma-separated names out of `known`, in the library's order.
fn names(value: &str, known: &[&'static str], what: &str) -> Result<Names, String> {
    let mut wanted = Vec::new();
    for name in value.split(',').map(str::trim) {
        if name.is_empty() {
            return Err(format!("expected comma-separated {what} names"));
        }
        if !known.contains(&name) {
            return Err(format!(
                "unknown {what} '{name}' (known: {})",
                known.join(", ")
            ));
        }
        wanted.push(name);
    }
    Ok(Names(
        known
            .iter()
            .copied()
            .filter(|k| wanted.contains(k))
            .collect(),
    ))
}

/// `--designs a,b`.
pub fn designs(value: &str) -> Result<Names, String> {
    names(value, DESIGN_NAMES, "design")
}

/// `--scenarios x,y`.
pub fn scenarios(value: &str) -> Result<Names, String> {
    names(value, SCENARIO_NAMES, "scenario")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_and_syntax() {
        assert_eq!(thread_count("64"), Ok(64));
        assert!(thread_count("65").unwrap_err().contains("1 to 64"));
        assert!(thread_count("-1").unwrap_err().contains("whole number"));
        assert!(at_least_one("0").unwrap_err().contains("at least 1"));
        for bad in ["0", "NaN", "-2", "1e300", "x"] {
            assert!(seconds(bad).unwrap_err().contains("above 0"), "{bad}");
        }
        assert_eq!(seconds("1.5"), Ok(Duration::from_millis(1500)));
        assert!(seeds("5..5").unwrap_err().contains("A < B"));
        assert!(shard("3/2").unwrap_err().contains("0 <= I < N"));
        assert!(port("70000").unwrap_err().contains("1 to 65535"));
        assert!(host("").is_err() && path("").is_err());
        assert!(designs("seed,").unwrap_err().contains("comma-separated"));
        assert_eq!(
            designs("seed,consumer-offsets").unwrap().0,
            ["consumer-offsets", "seed"]
        );
    }
}
