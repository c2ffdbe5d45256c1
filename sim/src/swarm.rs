//! Swarm testing: each seed first draws its own configuration (the workload's size, which
//! fault kinds are on and how often, how often clients abort), so that a range of seeds
//! covers quiet runs, runs hammered by one fault kind, and everything between, instead of
//! every run averaging every fault (Groce et al., "Swarm Testing"; TigerBeetle's VOPR).
//! Every choice is printed with the seed and recorded in the run's output.

use crate::faults::FaultKind;
use crate::options::SimOptions;
use crate::ratio::Ratio;
use crate::rng::SimRng;
use crate::schedule::{FaultEvent, Timed};
use serde::{Deserialize, Serialize};
use sharetxn_model::protocol::width::Offset;
use std::fmt;
use std::ops::RangeInclusive;

/// One seed's choices.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Swarm {
    /// Input records.
    pub inputs: u8,
    /// Transactions per producer incarnation.
    pub txns: u8,
    /// Output partitions.
    pub partitions: u8,
    /// Records in the share partition, when `swarm_records` is set and the scenario has a
    /// share group (left out of the output otherwise, as before these were drawn).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub records: Option<Offset>,
    /// Transactional producers, when `swarm_producers` is set and the scenario has any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub producers: Option<u8>,
    /// Share consumers, when `swarm_consumers` is set and the scenario has any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub consumers: Option<u8>,
    /// How likely a client is to abort rather than commit.
    pub abort: Ratio,
    /// Chance a message is lost.
    pub loss: Ratio,
    /// Chance a client request is duplicated.
    pub duplication: Ratio,
    /// Chance a message is delayed by a spike.
    pub spike: Ratio,
    /// The longest spike.
    pub spike_max_ms: u64,
    /// Mean time between partitions (0: off).
    pub partition_every_ms: u64,
    /// The longest partition.
    pub partition_max_ms: u64,
    /// Mean time between crashes (0: off).
    pub crash_every_ms: u64,
    /// The longest downtime.
    pub downtime_max_ms: u64,
    /// Mean time between stalls (0: off).
    pub stall_every_ms: u64,
    /// The longest stall.
    pub stall_max_ms: u64,
}

fn draw_in(rng: &mut SimRng, range: &RangeInclusive<u8>) -> u8 {
    rng.between(u64::from(*range.start()), u64::from(*range.end())) as u8
}

fn draw_records(rng: &mut SimRng, range: &RangeInclusive<Offset>) -> Offset {
    rng.between(u64::from(*range.start()), u64::from(*range.end())) as Offset
}

/// Which of the workload's sizes a scenario lets the swarm draw: the swarm sizes the
/// scenario's own actors and never adds a role it does not have (no share group in
/// `txn-basic`, no plain share consumers in `ctp`).
#[derive(Clone, Copy, Debug, Default)]
pub struct Sizable {
    /// The scenario has a share group (`records`).
    pub records: bool,
    /// The scenario has transactional producers.
    pub producers: bool,
    /// The scenario has share consumers.
    pub consumers: bool,
}

impl Swarm {
    /// The choices of one seed. `crashable` says whether the scenario lets any actor crash
    /// (otherwise crashes stay off whatever the draw).
    pub fn draw(rng: &mut SimRng, options: &SimOptions, crashable: bool) -> Swarm {
        Swarm::draw_sized(rng, options, crashable, Sizable::default())
    }

    /// The choices of one seed, drawing the sizes `sizable` allows when their `swarm_*`
    /// range is set. A size that is not drawn takes nothing from `rng`, so the seeds of
    /// runs without these ranges draw what they drew before.
    pub fn draw_sized(
        rng: &mut SimRng,
        options: &SimOptions,
        crashable: bool,
        sizable: Sizable,
    ) -> Swarm {
        let on = |rng: &mut SimRng, kind: FaultKind| options.faults.contains(&kind) && rng.coin();
        let inputs = draw_in(rng, &options.swarm_inputs);
        let txns = draw_in(rng, &options.swarm_txns);
        let partitions = draw_in(rng, &options.swarm_partitions);
        let records = (options.swarm_records.as_ref())
            .filter(|_| sizable.records)
            .map(|r| draw_records(rng, r));
        let producers = (options.swarm_producers.as_ref())
            .filter(|_| sizable.producers)
            .map(|r| draw_in(rng, r));
        let consumers = (options.swarm_consumers.as_ref())
            .filter(|_| sizable.consumers)
            .map(|r| draw_in(rng, r));
        let abort = Ratio::new(rng.between(0, 50) as u32, 100);
        let mut s = Swarm {
            inputs,
            txns,
            partitions,
            records,
            producers,
            consumers,
            abort,
            loss: Ratio::NEVER,
            duplication: Ratio::NEVER,
            spike: Ratio::NEVER,
            spike_max_ms: 0,
            partition_every_ms: 0,
            partition_max_ms: 0,
            crash_every_ms: 0,
            downtime_max_ms: 0,
            stall_every_ms: 0,
            stall_max_ms: 0,
        };
        if on(rng, FaultKind::Loss) {
            s.loss = Ratio::new(rng.between(1, 50) as u32, 1000);
        }
        if on(rng, FaultKind::Duplication) {
            s.duplication = Ratio::new(rng.between(1, 50) as u32, 1000);
        }
        if on(rng, FaultKind::Spike) {
            s.spike = Ratio::new(rng.between(1, 200) as u32, 1000);
            s.spike_max_ms = rng.between(1_000, 90_000);
        }
        if on(rng, FaultKind::Partition) {
            s.partition_every_ms = rng.between(30_000, 300_000);
            s.partition_max_ms = rng.between(1_000, 120_000);
        }
        if on(rng, FaultKind::Crash) && crashable {
            s.crash_every_ms = rng.between(20_000, 300_000);
            s.downtime_max_ms = rng.between(100, 30_000);
        }
        if on(rng, FaultKind::Stall) {
            s.stall_every_ms = rng.between(20_000, 300_000);
            s.stall_max_ms = rng.between(100, 60_000);
        }
        s
    }

    /// The fault kinds this seed turned on.
    pub fn kinds(&self) -> Vec<FaultKind> {
        let mut out = Vec::new();
        for (kind, on) in [
            (FaultKind::Loss, !self.loss.is_never()),
            (FaultKind::Duplication, !self.duplication.is_never()),
            (FaultKind::Spike, !self.spike.is_never()),
            (FaultKind::Partition, self.partition_every_ms > 0),
            (FaultKind::Crash, self.crash_every_ms > 0),
            (FaultKind::Stall, self.stall_every_ms > 0),
        ] {
            if on {
                out.push(kind);
            }
        }
        out
    }

    /// Draws the timed faults of a fault phase `fault_ms` long over `actors` actors: each
    /// kind that is on happens at intervals drawn uniformly up to twice its mean.
    pub fn draw_timed(&self, rng: &mut SimRng, fault_ms: u64, actors: usize) -> Vec<Timed> {
        let mut out = Vec::new();
        let mut every =
            |rng: &mut SimRng, mean: u64, make: &mut dyn FnMut(&mut SimRng) -> FaultEvent| {
                if mean == 0 {
                    return;
                }
                let mut at = rng.between(1, 2 * mean);
                while at < fault_ms {
                    let event = make(rng);
                    out.push(Timed { at_ms: at, event });
                    at += rng.between(1, 2 * mean);
                }
            };
        let n = actors.clamp(1, 32);
        every(rng, self.partition_every_ms, &mut |rng| {
            FaultEvent::Partition {
                side: partition_side(rng, n),
                duration_ms: rng.between(100, self.partition_max_ms.max(100)),
                hold: rng.coin(),
            }
        });
        every(rng, self.crash_every_ms, &mut |rng| FaultEvent::Crash {
            actor: rng.below(256) as u8,
            downtime_ms: rng.between(10, self.downtime_max_ms.max(10)),
        });
        every(rng, self.stall_every_ms, &mut |rng| FaultEvent::Stall {
            actor: rng.below(n as u64) as u8,
            duration_ms: rng.between(10, self.stall_max_ms.max(10)),
        });
        out
    }
}

/// One side of a split of `n` actors: half the time one actor alone, otherwise a random
/// proper subset.
fn partition_side(rng: &mut SimRng, n: usize) -> u32 {
    let all = if n >= 32 { u32::MAX } else { (1u32 << n) - 1 };
    if n < 2 {
        return 0;
    }
    if rng.coin() {
        return 1 << rng.below(n as u64);
    }
    loop {
        let side = (rng.below(u64::from(all)) as u32) & all;
        if side != 0 && side != all {
            return side;
        }
    }
}

impl fmt::Display for Swarm {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "inputs={} txns={} partitions={}",
            self.inputs, self.txns, self.partitions
        )?;
        for (name, size) in [
            ("records", self.records.map(u64::from)),
            ("producers", self.producers.map(u64::from)),
            ("consumers", self.consumers.map(u64::from)),
        ] {
            if let Some(n) = size {
                write!(f, " {name}={n}")?;
            }
        }
        write!(f, " abort={}", self.abort)?;
        let off = |f: &mut fmt::Formatter<'_>, name: &str| write!(f, " {name}=off");
        if self.loss.is_never() {
            off(f, "loss")?;
        } else {
            write!(f, " loss={}", self.loss)?;
        }
        if self.duplication.is_never() {
            off(f, "duplication")?;
        } else {
            write!(f, " duplication={}", self.duplication)?;
        }
        if self.spike.is_never() {
            off(f, "spike")?;
        } else {
            write!(f, " spike={}(<={}ms)", self.spike, self.spike_max_ms)?;
        }
        for (name, every, max) in [
            ("partition", self.partition_every_ms, self.partition_max_ms),
            ("crash", self.crash_every_ms, self.downtime_max_ms),
            ("stall", self.stall_every_ms, self.stall_max_ms),
        ] {
            if every == 0 {
                off(f, name)?;
            } else {
                write!(f, " {name}=every~{every}ms(<={max}ms)")?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn draws_stay_in_range_and_respect_the_allowed_kinds() {
        let options = SimOptions {
            faults: vec![FaultKind::Loss],
            ..SimOptions::default()
        };
        for seed in 0..50 {
            let s = Swarm::draw(&mut SimRng::new(seed), &options, true);
            assert!(options.swarm_inputs.contains(&s.inputs));
            assert!(options.swarm_txns.contains(&s.txns));
            assert!(s.kinds().iter().all(|k| *k == FaultKind::Loss), "{s}");
        }
        let seeds_with_loss = (0..50)
            .filter(|seed| {
                !Swarm::draw(&mut SimRng::new(*seed), &options, true)
                    .loss
                    .is_never()
            })
            .count();
        assert!((10..40).contains(&seeds_with_loss), "{seeds_with_loss}");
    }

    #[test]
    fn timed_faults_fall_in_the_fault_phase() {
        let options = SimOptions::default();
        let s = Swarm {
            crash_every_ms: 10_000,
            downtime_max_ms: 500,
            stall_every_ms: 5_000,
            stall_max_ms: 100,
            partition_every_ms: 20_000,
            partition_max_ms: 1_000,
            ..Swarm::draw(&mut SimRng::new(3), &options, true)
        };
        let timed = s.draw_timed(&mut SimRng::new(4), 100_000, 4);
        assert!(timed.len() > 10, "{timed:?}");
        assert!(timed.iter().all(|t| t.at_ms < 100_000));
        for t in &timed {
            if let FaultEvent::Partition { side, .. } = t.event {
                assert!(side != 0 && side != 0b1111, "{side:b}");
            }
        }
    }
}
