//! A deterministic network for ESP tests: packets go in in order and come
//! out lost, duplicated, reordered a little or a lot, or forged, as a
//! seeded generator decides — the same seed, the same arrivals.

use crate::common::Rng;

/// What the network does, as chances in thousandths per packet.
#[derive(Clone, Copy, Debug)]
pub struct Network {
    pub loss: u64,
    pub duplicate: u64,
    /// Delayed by 1..=near_distance packets.
    pub reorder_near: u64,
    pub near_distance: usize,
    /// Delayed by far_distance..2·far_distance packets.
    pub reorder_far: u64,
    pub far_distance: usize,
    /// A copy with one bit flipped is injected.
    pub forge: u64,
}

/// A rough network: 3 % lost, 5 % duplicated, 15 % reordered by up to
/// 20 packets and 1 % by 200 to 400, 3 % forged.
pub const ROUGH: Network = Network {
    loss: 30,
    duplicate: 50,
    reorder_near: 150,
    near_distance: 20,
    reorder_far: 10,
    far_distance: 200,
    forge: 30,
};

/// One packet as the receiver sees it.
#[derive(Clone, Debug)]
pub struct Arrival {
    /// Index of the packet sent.
    pub index: usize,
    /// A copy of an earlier arrival of the same packet.
    pub duplicate: bool,
    /// Modified in flight: must never be delivered.
    pub forged: bool,
    pub bytes: Vec<u8>,
}

impl Network {
    /// The arrivals for `packets`, sent in order.
    pub fn carry(&self, packets: &[Vec<u8>], rng: &mut Rng) -> Vec<Arrival> {
        let mut timed = Vec::new(); // (arrival time, tiebreak, arrival)
        let chance = |rng: &mut Rng, per_mille: u64| rng.below(1000) < per_mille as usize;
        for (index, bytes) in packets.iter().enumerate() {
            if chance(rng, self.loss) {
                continue;
            }
            let mut time = index;
            if chance(rng, self.reorder_far) {
                time += self.far_distance + rng.below(self.far_distance.max(1));
            } else if chance(rng, self.reorder_near) {
                time += 1 + rng.below(self.near_distance.max(1));
            }
            let mut copies = vec![(time, false, false, bytes.clone())];
            if chance(rng, self.duplicate) {
                let later = time + rng.below(2 * self.far_distance.max(1));
                copies.push((later, true, false, bytes.clone()));
            }
            if chance(rng, self.forge) {
                let mut forged = bytes.clone();
                let bit = rng.below(forged.len() * 8);
                forged[bit / 8] ^= 1 << (bit % 8);
                copies.push((time + rng.below(4), false, true, forged));
            }
            for (time, duplicate, forged, bytes) in copies {
                let arrival = Arrival {
                    index,
                    duplicate,
                    forged,
                    bytes,
                };
                timed.push((time, timed.len(), arrival));
            }
        }
        timed.sort_by_key(|(time, tiebreak, _)| (*time, *tiebreak));
        // A duplicate scheduled before its original arrives first: whichever
        // copy comes first is the original one.
        let mut seen = std::collections::HashSet::new();
        timed
            .into_iter()
            .map(|(_, _, mut a)| {
                if !a.forged {
                    a.duplicate = !seen.insert(a.index);
                }
                a
            })
            .collect()
    }
}
