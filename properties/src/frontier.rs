//! A breadth-first level between two expansions: blocks of collapsed records
//! (`collapse.rs`), each with the thread that produced it and so the parts its records
//! index.

use crate::collapse::Parts;
use sharetxn_model::SystemState;

/// States of a level, in order: their fingerprints and records.
#[derive(Default)]
pub(crate) struct Packed {
    /// The states' fingerprints.
    pub fps: Vec<u64>,
    /// Their records, one after another.
    pub records: Vec<u32>,
}

impl Packed {
    /// Room for `states` records of `stride` words.
    pub fn with_capacity(states: usize, stride: usize) -> Packed {
        Packed {
            fps: Vec::with_capacity(states),
            records: Vec::with_capacity(states * stride),
        }
    }
}

/// One level, as blocks owned by the threads that produced them, each thread's with the
/// parts their records index.
pub(crate) struct Frontier {
    /// The blocks, each with the thread that produced it.
    pub blocks: Vec<(usize, Packed)>,
    /// Each producing thread's parts.
    pub parts: Vec<Parts>,
}

impl Frontier {
    /// The level of one state (the initial one).
    pub fn single((fp, state): (u64, SystemState)) -> Frontier {
        let mut parts = Parts::new(state.nodes.len());
        let mut block = Packed::with_capacity(1, parts.stride());
        block.fps.push(fp);
        parts.encode(&state, None, &mut block.records);
        Frontier {
            blocks: vec![(0, block)],
            parts: vec![parts],
        }
    }

    /// The number of states.
    pub fn len(&self) -> usize {
        self.blocks.iter().map(|(_, b)| b.fps.len()).sum()
    }

    /// The states with their fingerprints, in the serial order, decoded.
    pub fn into_states(self) -> Vec<(u64, SystemState)> {
        let mut states = Vec::with_capacity(self.len());
        let mut state = SystemState::default();
        for (owner, block) in &self.blocks {
            let parts = &self.parts[*owner];
            let records = block.records.chunks_exact(parts.stride());
            for (fp, record) in block.fps.iter().zip(records) {
                parts.decode(record, &mut state);
                states.push((*fp, state.clone()));
            }
        }
        states
    }
}
