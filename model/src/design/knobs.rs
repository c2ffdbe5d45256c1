//! The knob table: every design knob is one field of [`Design`] and one row of [`KNOBS`],
//! both written by the one [`design_knobs!`] entry in `design/mod.rs`. The row is what
//! `--set` parses, what reports and traces record, what the design line and
//! `docs/designs.md` show, and which property fails when the knob is reverted from
//! `proposed`; so a knob is added in three places: its entry, its rule in the protocol,
//! and a test of that rule.

use crate::design::kip939::AcknowledgerCommit;
use crate::design::session_knobs::{EpochHandoff, ResumeMode};
use crate::design::sink_knobs::SinkCommitScope;
use crate::design::spl_knobs::{parse_choice, LeaderResolution, StageOwnerCheck};
use crate::design::{Design, MarkerMatch, TransactionVersion, KNOBS};
use serde_json::Value;

/// When the design line ([`Design::describe`]) shows a knob.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shown {
    /// Always: the transaction protocol's headline knobs.
    Always,
    /// Only at a value other than the seed design's.
    Moved,
}

/// One design knob.
pub struct Knob {
    /// The field's name, as `--set`, reports and traces spell it.
    pub name: &'static str,
    /// What it means and its values, as `--set` help and `docs/designs.md` show it.
    pub help: &'static str,
    /// When the design line shows it.
    pub shown: Shown,
    /// The properties that fail when this knob alone is reverted from `proposed` to the
    /// seed's value (the counterexamples of `properties/tests/suite/proposed.rs`); empty where
    /// `proposed` keeps the seed's value.
    pub reverted: &'static [&'static str],
    /// The design's value, as `--set` spells it.
    pub value: fn(&Design) -> String,
    /// The design's value in reports and traces.
    pub json: fn(&Design) -> Value,
    /// Sets the value from its `--set` spelling (the key is for the error message).
    pub set: fn(&mut Design, &str, &str) -> Result<(), String>,
}

impl Knob {
    /// The row named `name`, if there is one.
    pub fn by_name(name: &str) -> Option<&'static Knob> {
        KNOBS.iter().find(|k| k.name == name)
    }
}

/// A knob's value type: how `--set` parses and spells it and how reports record it.
pub trait KnobValue: Sized {
    /// Parses a `--set` value, with a one-line error naming `key`.
    fn parse(key: &str, value: &str) -> Result<Self, String>;
    /// The `--set` spelling.
    fn spell(&self) -> String;
    /// The value in reports and traces.
    fn json(&self) -> Value;
}

/// Parses `true|on|1` and `false|off|0`.
pub fn parse_bool(key: &str, value: &str) -> Result<bool, String> {
    match value {
        "true" | "on" | "1" => Ok(true),
        "false" | "off" | "0" => Ok(false),
        _ => Err(format!("--set {key}={value}: expected true or false")),
    }
}

/// Parses a whole number in `lo..=hi`.
pub fn parse_range<T>(key: &str, value: &str, lo: T, hi: T) -> Result<T, String>
where
    T: std::str::FromStr + PartialOrd + std::fmt::Display + Copy,
{
    match value.parse::<T>() {
        Ok(n) if (lo..=hi).contains(&n) => Ok(n),
        _ => Err(format!(
            "--set {key}={value}: expected a whole number from {lo} to {hi}"
        )),
    }
}

impl KnobValue for bool {
    fn parse(key: &str, value: &str) -> Result<Self, String> {
        parse_bool(key, value)
    }
    fn spell(&self) -> String {
        self.to_string()
    }
    fn json(&self) -> Value {
        Value::Bool(*self)
    }
}

impl KnobValue for TransactionVersion {
    fn parse(key: &str, value: &str) -> Result<Self, String> {
        parse_range(key, value, 0, 2).map(TransactionVersion)
    }
    fn spell(&self) -> String {
        self.0.to_string()
    }
    fn json(&self) -> Value {
        Value::from(self.0)
    }
}

/// A choice among named values: each type has `ALL` and `name()`.
macro_rules! choice_knobs {
    ($($t:ty),* $(,)?) => {$(
        impl KnobValue for $t {
            fn parse(key: &str, value: &str) -> Result<Self, String> {
                parse_choice(key, value, &<$t>::ALL, <$t>::name)
            }
            fn spell(&self) -> String {
                self.name().to_string()
            }
            fn json(&self) -> Value {
                Value::String(self.name().to_string())
            }
        }
    )*};
}

choice_knobs!(
    StageOwnerCheck,
    LeaderResolution,
    MarkerMatch,
    crate::design::session_knobs::HeartbeatOwner,
    AcknowledgerCommit,
    EpochHandoff,
    SinkCommitScope,
    ResumeMode,
);

/// Declares [`Design`] and [`KNOBS`] from one list: per knob its doc comment and serde
/// attributes (how a trace leaves it out), `name: Type = Kafka's default`, when the design
/// line shows it, its `--set` help and the properties its revert from `proposed` fails.
macro_rules! design_knobs {
    (
        $(#[$meta:meta])*
        pub struct Design {
            $(#[$name_meta:meta])*
            pub name: String,
            $(
                $(#[$field_meta:meta])*
                $field:ident: $ty:ty = $default:expr,
                    shown $shown:ident,
                    help $help:literal,
                    reverted [$($reverted:literal),*];
            )*
        }
    ) => {
        $(#[$meta])*
        pub struct Design {
            $(#[$name_meta])*
            pub name: String,
            $($(#[$field_meta])* pub $field: $ty,)*
        }

        impl Design {
            /// Every knob at Kafka's value (`consumer-offsets`' knobs), under `name`.
            fn kafka(name: &str) -> Design {
                Design { name: name.into(), $($field: $default,)* }
            }
        }

        /// Every design knob, in the order of [`Design`]'s fields.
        pub const KNOBS: &[$crate::design::knobs::Knob] = &[$(
            $crate::design::knobs::Knob {
                name: stringify!($field),
                help: $help,
                shown: $crate::design::knobs::Shown::$shown,
                reverted: &[$($reverted),*],
                value: |d| $crate::design::knobs::KnobValue::spell(&d.$field),
                json: |d| $crate::design::knobs::KnobValue::json(&d.$field),
                set: |d, key, value| {
                    d.$field = $crate::design::knobs::KnobValue::parse(key, value)?;
                    Ok(())
                },
            },
        )*];
    };
}
pub(crate) use design_knobs;
