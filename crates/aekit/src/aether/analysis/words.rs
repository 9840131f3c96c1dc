//! Word-level truncated differentials of AEGIS-like round updates: the
//! fewest active inner functions (#AF) in the initialization (the paper's
//! Table 7), in an internal collision (the forgery bound of its §3.2.1 and
//! §4.4), and the search over a family of round updates that its Table 6
//! reports.
//!
//! # The model
//!
//! A round update on s words makes word i the XOR of F applied to one word
//! and of either another word or an input block:
//! `S_i' = F(S[f_i]) ⊕ S[x_i]` or `S_i' = F(S[f_i]) ⊕ X_k`. A truncated
//! difference says which words differ (a bit each). F is a permutation, so
//! F of an active word is active and F of an inactive one is not. An XOR of
//! one active and one inactive word is active; of two inactive ones,
//! inactive; of two active ones, either — the differences may cancel, and
//! the model allows it whenever it helps. Every word goes through F once per
//! update, so the number of active F in a round is the number of active
//! words entering it.
//!
//! Each F and each XOR operand is used once per update in the updates
//! studied here, so the choices of different words are independent and the
//! successors of a pattern are `must | any subset of optional`. The model
//! admits more than real differences can do (any cancellation, any value),
//! so its minimum is a **lower bound** on the active F of every real
//! characteristic; the searches below find that minimum exactly (dynamic
//! programming over all 2^s patterns per round, or Dijkstra's shortest path
//! over them), with no heuristic cut-off.
//!
//! With each active F costing at most 2^-16 of probability (the inner
//! function's bound, `inner.rs`), k active F bound a characteristic by
//! 2^(−16k): 8 for 2^-128 (forgery), 16 for 2^-256 (key recovery).
//!
//! # The family of Table 6
//!
//! The paper searches every update with s words and m input blocks in which
//! word i takes F of word i − 1 (mod s), m of the words take an input block,
//! and the other s − m take distinct state words as XOR operand. Counted,
//! that is C(s, m) · s!/m! updates — exactly the "Total" column of Table 6
//! for every row but one, e.g. 96 for (4, 1) and 5 080 320 for (9, 3); for
//! (10, 5) the paper prints 38 102 400, five times the formula's 7 620 480
//! (as if divided by 4! instead of 5!). (The figure
//! of the general structure did not survive in the seed; this reading is
//! the one whose counts match, and AETHER's own update belongs to it.) An
//! update is kept when every internal collision needs at least 8 active F.

use rayon::prelude::*;

use super::SplitMix;

/// A round update of the family above: `f_source[i]` is the word F is
/// applied to for word i; `xor_source[i]` the word XORed in, or `None` for
/// an input block.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct RoundUpdate {
    /// The word each new word takes F of.
    pub f_source: Vec<usize>,
    /// The word each new word XORs in, or `None` for an input block.
    pub xor_source: Vec<Option<usize>>,
}

impl RoundUpdate {
    /// AETHER's R (spec: round update), word by word:
    /// S0' = F(S8) ⊕ X0, S1' = F(S0) ⊕ S3, S2' = F(S1) ⊕ S6,
    /// S3' = F(S2) ⊕ X1, S4' = F(S3) ⊕ S4, S5' = F(S4) ⊕ X2,
    /// S6' = F(S5) ⊕ S8, S7' = F(S6) ⊕ S2, S8' = F(S7) ⊕ S0.
    pub fn aether() -> RoundUpdate {
        RoundUpdate {
            f_source: vec![8, 0, 1, 2, 3, 4, 5, 6, 7],
            xor_source: vec![
                None,
                Some(3),
                Some(6),
                None,
                Some(4),
                None,
                Some(8),
                Some(2),
                Some(0),
            ],
        }
    }

    /// s: the number of words.
    pub fn words(&self) -> usize {
        self.f_source.len()
    }

    /// m: the number of input blocks.
    pub fn inputs(&self) -> usize {
        self.xor_source.iter().filter(|x| x.is_none()).count()
    }

    /// The patterns an update can lead to from `state` (bit i: word i
    /// active): `(must, optional)` — every successor is `must` with any
    /// subset of `optional` added. `inputs_free`: the input blocks may
    /// carry any difference (a forgery), or none (the initialization).
    fn successors(&self, state: u32, inputs_free: bool) -> (u32, u32) {
        let (mut must, mut optional) = (0u32, 0u32);
        for (i, (&f, &x)) in self.f_source.iter().zip(&self.xor_source).enumerate() {
            let a = (state >> f) & 1 == 1;
            let b = match x {
                Some(w) => (state >> w) & 1 == 1,
                None if inputs_free => {
                    // F(S[f]) ⊕ X: the input can make it anything.
                    optional |= 1 << i;
                    continue;
                }
                None => false,
            };
            match (a, b) {
                (true, true) => optional |= 1 << i,
                (true, false) | (false, true) => must |= 1 << i,
                (false, false) => {}
            }
        }
        (must, optional)
    }
}

/// Calls `f` on `must | sub` for every subset `sub` of `optional`.
fn for_each_successor(must: u32, optional: u32, mut f: impl FnMut(u32)) {
    let mut sub = optional;
    loop {
        f(must | sub);
        if sub == 0 {
            break;
        }
        sub = (sub - 1) & optional;
    }
}

/// The fewest active F over the first r rounds of an initialization whose
/// state starts with one of the difference patterns `starts` (bit i: word
/// i differs) and whose inputs are constants, for r = 1 ..= `rounds`
/// (exact in the model: dynamic programming over all 2^s patterns after
/// each round).
///
/// AETHER's nonce enters S2 = N ⊕ K0 and S6 = N: `starts` = [words 2 and 6].
///
/// # Panics
///
/// If the update has more than 20 words or a start has bits beyond them.
pub fn init_active_bounds(update: &RoundUpdate, starts: &[u32], rounds: usize) -> Vec<u32> {
    let s = update.words();
    assert!(s <= 20, "at most 20 words");
    const UNREACHED: u32 = u32::MAX;
    let mut best = vec![UNREACHED; 1 << s];
    for &start in starts {
        best[start as usize] = 0;
    }
    let mut bounds = Vec::with_capacity(rounds);
    for _ in 0..rounds {
        let mut next = vec![UNREACHED; 1 << s];
        for (state, &cost) in best.iter().enumerate() {
            if cost == UNREACHED {
                continue;
            }
            let cost = cost + state.count_ones();
            let (must, optional) = update.successors(state as u32, false);
            for_each_successor(must, optional, |t| {
                let slot = &mut next[t as usize];
                *slot = (*slot).min(cost);
            });
        }
        bounds.push(next.iter().copied().min().unwrap_or(UNREACHED));
        best = next;
    }
    bounds
}

/// The fewest active F in any internal collision: input differences that
/// take a state without difference back to one without difference (exact
/// in the model, over paths of any length, by Dijkstra's algorithm). The
/// search stops at `cap`: the result is min(true minimum, cap), and a
/// smaller cap answers "at least cap?" faster.
///
/// # Panics
///
/// If the update has more than 20 words.
pub fn collision_active_bound(update: &RoundUpdate, cap: u32) -> u32 {
    CollisionSearch::default().run(update, cap)
}

/// The buffers of [`collision_active_bound`], kept between searches (the
/// family search runs millions of them).
#[derive(Default)]
struct CollisionSearch {
    /// Cost of the cheapest path found to each pattern (`u8::MAX`: none).
    dist: Vec<u8>,
    /// Patterns whose `dist` was set, to reset them cheaply.
    touched: Vec<u32>,
    /// Bucket queue: patterns by cost (small integers below the cap).
    buckets: Vec<Vec<u32>>,
}

impl CollisionSearch {
    fn run(&mut self, update: &RoundUpdate, cap: u32) -> u32 {
        let s = update.words();
        assert!(s <= 20, "at most 20 words");
        let cap = cap.min(u8::MAX as u32) as u8;
        if self.dist.len() < 1 << s {
            self.dist = vec![u8::MAX; 1 << s];
        }
        for t in self.touched.drain(..) {
            self.dist[t as usize] = u8::MAX;
        }
        if self.buckets.len() < cap as usize {
            self.buckets.resize(cap as usize, Vec::new());
        }
        self.buckets.iter_mut().for_each(Vec::clear);
        let (dist, touched, buckets) = (&mut self.dist, &mut self.touched, &mut self.buckets);
        // The first difference comes from the inputs alone: any nonzero
        // pattern of the words that take an input, at no cost (nothing
        // active went through F yet).
        let (_, free) = update.successors(0, true);
        for_each_successor(0, free, |t| {
            if t != 0 && cap > 0 {
                dist[t as usize] = 0;
                touched.push(t);
                buckets[0].push(t);
            }
        });
        let mut best = cap;
        for cost in 0..cap {
            if cost >= best {
                break;
            }
            while let Some(state) = buckets[cost as usize].pop() {
                if dist[state as usize] != cost {
                    continue; // reached more cheaply since it was queued
                }
                let next_cost = u32::from(cost) + state.count_ones();
                if next_cost >= u32::from(best) {
                    continue;
                }
                let next_cost = next_cost as u8; // below the cap, so below 256
                let (must, optional) = update.successors(state, true);
                for_each_successor(must, optional, |t| {
                    if t == 0 {
                        best = next_cost;
                    } else if next_cost < dist[t as usize] {
                        if dist[t as usize] == u8::MAX {
                            touched.push(t);
                        }
                        dist[t as usize] = next_cost;
                        buckets[next_cost as usize].push(t);
                    }
                });
            }
        }
        u32::from(best)
    }
}

/// The outcome of a Table 6 search for one (s, m).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FamilySearch {
    /// s.
    pub words: usize,
    /// m.
    pub inputs: usize,
    /// Updates in the family: C(s, m) · s!/m!.
    pub total: u64,
    /// Updates examined.
    pub searched: u64,
    /// Of those, the ones whose every internal collision has at least
    /// `threshold` active F.
    pub found: u64,
}

/// C(s, m) · s!/m!: the size of the family.
pub fn family_size(words: usize, inputs: usize) -> u64 {
    let binomial = (0..inputs).fold(1u64, |acc, i| acc * (words - i) as u64 / (i + 1) as u64);
    let injections = ((inputs + 1)..=words).fold(1u64, |acc, k| acc * k as u64);
    binomial * injections
}

/// The update of the family with inputs at the positions of `inputs_at`
/// (a bit mask) and XOR operands `operands` for the other positions, in
/// order.
fn member(words: usize, inputs_at: u32, operands: &[usize]) -> RoundUpdate {
    let mut next = operands.iter();
    RoundUpdate {
        f_source: (0..words).map(|i| (i + words - 1) % words).collect(),
        xor_source: (0..words)
            .map(|i| {
                if (inputs_at >> i) & 1 == 1 {
                    None
                } else {
                    next.next().copied()
                }
            })
            .collect(),
    }
}

/// Examines every update of the family with `words` words and `inputs`
/// input blocks (in parallel), or a random `sample` of them (with
/// replacement, from a fixed seed), and counts those whose internal
/// collisions all need at least `threshold` active F.
///
/// # Panics
///
/// If `inputs` is 0 or above `words`, or `words` is above 16.
pub fn search_family(
    words: usize,
    inputs: usize,
    threshold: u32,
    sample: Option<(u64, u64)>,
) -> FamilySearch {
    assert!(
        (1..=words).contains(&inputs) && words <= 16,
        "1 ≤ m ≤ s ≤ 16"
    );
    let total = family_size(words, inputs);
    let position_sets: Vec<u32> = (0u32..1 << words)
        .filter(|p| p.count_ones() as usize == inputs)
        .collect();
    let keep = |search: &mut CollisionSearch, inputs_at: u32, operands: &[usize]| {
        search.run(&member(words, inputs_at, operands), threshold) >= threshold
    };
    let (searched, found) = match sample {
        None => {
            let found = position_sets
                .par_iter()
                .map_init(CollisionSearch::default, |search, &inputs_at| {
                    let mut found = 0u64;
                    for_each_injection(words - inputs, words, &mut |ops| {
                        found += u64::from(keep(search, inputs_at, ops));
                    });
                    found
                })
                .sum();
            (total, found)
        }
        Some((count, seed)) => {
            let found = (0..count)
                .into_par_iter()
                .map_init(CollisionSearch::default, |search, k| {
                    let mut rng = SplitMix(seed ^ k.wrapping_mul(0x9e37_79b9_7f4a_7c15));
                    let inputs_at = position_sets[rng.below(position_sets.len() as u64) as usize];
                    // A uniform injection: a partial Fisher–Yates shuffle.
                    let mut pool: Vec<usize> = (0..words).collect();
                    for i in 0..words - inputs {
                        let j = i + rng.below((words - i) as u64) as usize;
                        pool.swap(i, j);
                    }
                    u64::from(keep(search, inputs_at, &pool[..words - inputs]))
                })
                .sum();
            (count, found)
        }
    };
    FamilySearch {
        words,
        inputs,
        total,
        searched,
        found,
    }
}

/// Calls `f` on every sequence of `len` distinct values below `n`.
fn for_each_injection(len: usize, n: usize, f: &mut dyn FnMut(&[usize])) {
    fn walk(seq: &mut Vec<usize>, used: u32, len: usize, n: usize, f: &mut dyn FnMut(&[usize])) {
        if seq.len() == len {
            f(seq);
            return;
        }
        for v in 0..n {
            if (used >> v) & 1 == 0 {
                seq.push(v);
                walk(seq, used | 1 << v, len, n, f);
                seq.pop();
            }
        }
    }
    walk(&mut Vec::with_capacity(len), 0, len, n, f);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::aether::engine::{State, Word};
    use crate::aether::reference;

    /// The paper's Table 7.
    const TABLE7: [u32; 16] = [2, 4, 8, 12, 16, 19, 22, 24, 28, 34, 36, 39, 43, 45, 48, 50];

    #[test]
    fn aether_update_matches_the_reference_round() {
        // Change one word of a random state, run the reference R, and see
        // which words change: exactly those that read the changed word
        // through F or the XOR (F is a permutation, so its output changes).
        let u = RoundUpdate::aether();
        let mut rng = SplitMix(7);
        let mut word = || -> Word { core::array::from_fn(|_| rng.next() as u8) };
        let state: State = core::array::from_fn(|_| word());
        let x = [word(), word(), word()];
        let mut base = state;
        reference::r(&mut base, &x);
        for changed in 0..9 {
            let mut s = state;
            s[changed][5] ^= 0x40;
            reference::r(&mut s, &x);
            for i in 0..9 {
                let reads = u.f_source[i] == changed || u.xor_source[i] == Some(changed);
                assert_eq!(
                    s[i] != base[i],
                    reads,
                    "word {i} after changing word {changed}"
                );
            }
        }
        // And the inputs: X_k enters exactly the words with `None`, in order.
        let inputs: Vec<usize> = (0..9).filter(|&i| u.xor_source[i].is_none()).collect();
        for (k, &target) in inputs.iter().enumerate() {
            let mut xs = x;
            xs[k][0] ^= 1;
            let mut s = state;
            reference::r(&mut s, &xs);
            let changed: Vec<usize> = (0..9).filter(|&i| s[i] != base[i]).collect();
            assert_eq!(changed, vec![target]);
        }
    }

    #[test]
    fn initialization_bounds_are_the_papers_table_7() {
        let bounds = init_active_bounds(&RoundUpdate::aether(), &[1 << 2 | 1 << 6], 16);
        assert_eq!(bounds, TABLE7);
        // Any start: never more than from the nonce's; the first round is
        // the number of active words of the cheapest start, one.
        let starts: Vec<u32> = (1..1 << 9).collect();
        let any = init_active_bounds(&RoundUpdate::aether(), &starts, 16);
        assert_eq!(any[0], 1);
        assert!(any.iter().zip(&bounds).all(|(a, n)| a <= n));
    }

    #[test]
    fn aether_collisions_need_8_active_f() {
        assert_eq!(collision_active_bound(&RoundUpdate::aether(), 64), 8);
        assert_eq!(collision_active_bound(&RoundUpdate::aether(), 5), 5);
    }

    #[test]
    fn two_inputs_cancel_after_one_active_f() {
        // S0' = F(S1) ⊕ X0, S1' = F(S0) ⊕ X1: a difference in X0 makes S0
        // active at no cost; in the next round F(S0) is the one active F,
        // X1 cancels it, and S0' = F(S1) ⊕ X0 is inactive: 1 active F.
        let u = RoundUpdate {
            f_source: vec![1, 0],
            xor_source: vec![None, None],
        };
        assert_eq!(collision_active_bound(&u, 64), 1);
        assert_eq!(brute_force_collision(&u, 8), 1);
    }

    /// Minimum active F of a collision by trying every path of at most
    /// `max_rounds` rounds.
    fn brute_force_collision(u: &RoundUpdate, max_rounds: usize) -> u32 {
        fn walk(u: &RoundUpdate, state: u32, cost: u32, left: usize, best: &mut u32) {
            if left == 0 || cost >= *best {
                return;
            }
            let (must, optional) = u.successors(state, true);
            let next_cost = cost + state.count_ones();
            for_each_successor(must, optional, |t| {
                if t == 0 {
                    if state != 0 {
                        *best = (*best).min(next_cost);
                    }
                } else {
                    walk(u, t, next_cost, left - 1, best);
                }
            });
        }
        let mut best = u32::MAX;
        walk(u, 0, 0, max_rounds, &mut best);
        best
    }

    #[test]
    fn dijkstra_agrees_with_brute_force_on_small_updates() {
        let mut checked = 0;
        for inputs_at in [0b0001u32, 0b0101, 0b0011] {
            for_each_injection(4 - inputs_at.count_ones() as usize, 4, &mut |ops| {
                let u = member(4, inputs_at, ops);
                assert_eq!(
                    collision_active_bound(&u, 64),
                    brute_force_collision(&u, 12),
                    "{u:?}"
                );
                checked += 1;
            });
        }
        assert!(checked > 20);
    }

    #[test]
    fn the_family_counts_are_table_6s_totals() {
        for (s, m, total) in [
            (4, 1, 96),
            (4, 2, 72),
            (4, 3, 16),
            (6, 2, 5400),
            (8, 3, 376_320),
            (9, 3, 5_080_320),
            (10, 4, 31_752_000),
            // The paper prints 38 102 400 for (10, 5): C(10, 5) · 10!/4!,
            // five times its own formula's C(10, 5) · 10!/5!.
            (10, 5, 7_620_480),
            (11, 4, 548_856_000),
        ] {
            assert_eq!(family_size(s, m), total, "({s}, {m})");
        }
        // Enumeration visits each member once.
        let mut seen = std::collections::HashSet::new();
        for inputs_at in (0u32..1 << 5).filter(|p| p.count_ones() == 2) {
            for_each_injection(3, 5, &mut |ops| {
                assert!(seen.insert(member(5, inputs_at, ops)));
            });
        }
        assert_eq!(seen.len() as u64, family_size(5, 2));
    }

    #[test]
    fn aether_is_a_member_of_the_family() {
        let u = RoundUpdate::aether();
        let inputs_at = (0..9)
            .filter(|&i| u.xor_source[i].is_none())
            .fold(0u32, |m, i| m | 1 << i);
        let operands: Vec<usize> = u.xor_source.iter().flatten().copied().collect();
        assert_eq!(member(9, inputs_at, &operands), u);
    }

    #[test]
    fn small_rows_of_table_6() {
        // (s, m, found) as the paper reports them.
        for (s, m, found) in [(4, 1, 16), (4, 2, 0), (5, 2, 0), (6, 2, 54), (6, 3, 0)] {
            let r = search_family(s, m, 8, None);
            assert_eq!(
                (r.searched, r.found),
                (family_size(s, m), found),
                "({s}, {m})"
            );
        }
    }

    #[test]
    fn sampling_is_reproducible() {
        let a = search_family(6, 2, 8, Some((2000, 1)));
        let b = search_family(6, 2, 8, Some((2000, 1)));
        assert_eq!(a, b);
        assert_eq!(a.searched, 2000);
        // 54 of 5400 qualify: about 20 of 2000 draws.
        assert!((5..=50).contains(&a.found), "{a:?}");
    }
}
