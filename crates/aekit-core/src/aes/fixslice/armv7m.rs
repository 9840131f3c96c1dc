//! Fixsliced AES rounds in Thumb-2 assembly for ARMv7-M (Cortex-M3, M4,
//! M7; built where `build.rs` sets `aekit_armv7m`): for each round key
//! and `Mix` in turn, `s ← MC_j(S(s ⊕ key) ⊕ 0x63)`, or `S(s ⊕ key) ⊕
//! 0x63` for `Mix::Skip`, on the state and round keys of `super` (eight
//! 32-bit slices, two blocks); then the `Finish`: nothing, or the next
//! round key XORed in, and `SR²` after it for AES-128 and AES-256, on the
//! slices still in registers. The portable `run_rounds_portable` is its
//! reference; the test firmware checks that the two agree on random
//! inputs (`rounds_match_portable`).
//!
//! # Registers and schedule
//!
//! All fourteen general registers r0–r12 and lr hold values (r4–r11 and
//! lr are saved on entry). Between rounds the state's eight slices stay
//! in r4–r11 (slice `b` in r`4+b`: loaded once with `ldm`, stored once
//! with `stm`); each round ends by moving its output slices there. The
//! stack frame holds the loop's four words (state pointer, key pointer,
//! `Mix` pointer, rounds left) and the spilled values.
//!
//! The round body is written by `tools/armv7m_round.py` from the portable
//! code: it reads the Boyar–Peralta gates of `ark_sub_circuit!` in
//! `aes/sbox.rs` (the circuit of `ark_sub_portable`) and writes out
//! `mix_columns` as straight-line XORs, ANDs and rotations (each
//! rotation folded into the barrel shifter of the XOR or AND that uses
//! it; `gather`'s wrap correction as `(x ⊕ x⋙24)⋙shift & mask`). It
//! list-schedules the S-box to keep few values live, allocates registers
//! by furthest next use, spilling each value to the stack at most once
//! and rematerialising masks, keeps the schedule whose cost under the
//! Cortex-M4 cycle table of `firmware/cycles/m4model.py` is least among a
//! fixed set of seeded draws, and improves it by a seeded hill climb.
//! After the S-box one `tbh` on `j` selects the MixColumns variant; each
//! variant leaves the eight output slices in r4–r11, and the loop moves to
//! the next round key and `j`. A call whose first round starts at its
//! MixColumns (`Start::Mix`, flagged in the count) loads the state into
//! the registers the S-box leaves its output in and takes a `tbh` of its
//! own into the same variants. Every instruction of the round carries the
//! operation it computes as a comment.
//!
//! # Constant time
//!
//! The branches are on `j` and the number of rounds, both public (fixed
//! by the round number). Data and key meet only EOR and AND (with
//! rotations by constants); every load and store address is fixed by the
//! code and the round number.
//!
//! # Tried and rejected
//!
//! - *The S-box alone in assembly, MixColumns in Rust*: the state makes
//!   a round trip through memory between the two, and the call's
//!   register saves are paid twice.
//! - *The state stored at the end of each round and loaded by the next*:
//!   sixteen memory operations a round where the moves into r4–r11 are
//!   fewer and cheaper.
//! - *One call per round*: the register saves and the call are paid every
//!   round; the loop in assembly pays them once per block pair.
//! - *The last AddRoundKey and `SR²` in Rust after the call*: the state
//!   is stored, loaded, XORed, shifted and stored again, where the slices
//!   in r4–r11 need neither load nor store (`docs/CORTEX-M.md`).
//! - *The FACE engines' `MC_2` in Rust before a call from round 3*: the
//!   compiler's MixColumns spills where the generated one does not, and
//!   the state is stored and loaded between the two; the call starts at
//!   the MixColumns instead, for two instructions on every other call.
//! - *A second entry symbol for that start*: a branch between naked
//!   functions needs a global label, which two copies of the crate in one
//!   binary would define twice.
//! - *One copy of the S-box per MixColumns variant*: five S-boxes do not
//!   fit the core's code-size budget; the dispatch costs one branch.
//! - *Inline `asm!` inside the Rust rounds*: the compiler reserves r6 and
//!   r7 (base and frame pointer) and saves the rest around the block
//!   anyway; a naked function has all fourteen registers.

#![allow(unsafe_code)]

use super::mix::{Finish, Mix, Start};

/// Two blocks' state or one round key: eight 32-bit slices.
type Slices = [u32; 8];

/// [`super::run_rounds`] on ARMv7-M.
#[inline(always)]
pub(super) fn run_rounds(
    s: &mut Slices,
    keys: &[Slices],
    mixes: &[Mix],
    start: Start,
    finish: Finish,
) {
    // The finish's key is the one after the rounds'.
    let finish_keys = usize::from(finish != Finish::Nothing);
    let n = mixes.len().min(keys.len().saturating_sub(finish_keys));
    if n == 0 {
        // No round to run. Every caller with a finish runs rounds before
        // it (`encrypt_from` at least the last).
        assert!(finish == Finish::Nothing, "a finish without rounds");
        return;
    }
    // Every caller runs at most one cipher's rounds (14), far below the
    // flag; a count past it would run fewer rounds, still in bounds.
    debug_assert!(n < MIX_FIRST, "{n} rounds");
    let n_flagged = n + if start == Start::Mix { MIX_FIRST } else { 0 };
    // SAFETY: `rounds_asm` reads at most `n` round keys of eight words
    // from `keys`, and one more after them unless `finish` is `Nothing`,
    // and `n` bytes from `mixes`, all in bounds by `n`; it reads and
    // writes the eight words of `s`, touches no other memory than its own
    // stack frame and restores every callee-saved register. Each `Mix` is
    // 0..=4 by its type, which keeps the branch tables in bounds; `finish`
    // is 0..=2 by its type.
    unsafe {
        rounds_asm(
            s.as_mut_ptr(),
            keys.as_ptr().cast(),
            mixes.as_ptr().cast(),
            n_flagged,
            finish as u32,
        )
    }
}

/// Added to the number of rounds when the first starts at its MixColumns
/// ([`Start::Mix`]).
const MIX_FIRST: usize = 1 << 16;

/// The rounds, AAPCS: r0 = the state (eight words, written back), r1 =
/// the first round key (eight words each, consecutive), r2 = the rounds'
/// `j` (one byte each), r3 = the number of rounds, at least one, plus
/// [`MIX_FIRST`] if the first starts at its MixColumns (its key unread);
/// on the stack the [`Finish`] (0, 1 or 2), whose key follows the rounds'.
#[unsafe(naked)]
unsafe extern "C" fn rounds_asm(
    s: *mut u32,
    keys: *const u32,
    mixes: *const u8,
    n: usize,
    finish: u32,
) {
    core::arch::naked_asm!(
        // BEGIN GENERATED by tools/armv7m_round.py
        "push {{r4-r11, lr}}",
        "sub sp, #100",
        "str r0, [sp, #0]", // the state
        "str r1, [sp, #4]", // the first round's key
        "str r2, [sp, #8]", // the rounds' j
        "ldrb r2, [r2]",    // the first round's j
        "cmp r3, #65536",   // the first round from its MixColumns?
        "bhs 5f",
        "str r3, [sp, #12]",  // the number of rounds
        "ldm r0, {{r4-r11}}", // the state's eight slices
        "1:",
        "ldr r0, [r1, #28]",    // Kx0 = key[7]
        "eor r11, r11, r0",     // x0 = Sx0 ^ Kx0
        "ldr r0, [r1, #4]",     // Kx6 = key[1]
        "eors r5, r0",          // x6 = Sx6 ^ Kx6
        "ldr r0, [r1, #20]",    // Kx2 = key[5]
        "eor r9, r9, r0",       // x2 = Sx2 ^ Kx2
        "eor r0, r11, r5",      // y13 = x0 ^ x6
        "ldr r3, [r1, #24]",    // Kx1 = key[6]
        "eor r10, r10, r3",     // x1 = Sx1 ^ Kx1
        "ldr r3, [r1, #16]",    // Kx3 = key[4]
        "eor r8, r8, r3",       // x3 = Sx3 ^ Kx3
        "ldr r3, [r1, #0]",     // Kx7 = key[0]
        "eors r4, r3",          // x7 = Sx7 ^ Kx7
        "ldr r3, [r1, #8]",     // Kx5 = key[2]
        "eors r6, r3",          // x5 = Sx5 ^ Kx5
        "ldr r1, [r1, #12]",    // Kx4 = key[3]
        "eors r7, r1",          // x4 = Sx4 ^ Kx4
        "eor r1, r8, r6",       // y14 = x3 ^ x5
        "eor r3, r11, r8",      // y9 = x0 ^ x3
        "eor r12, r11, r6",     // y8 = x0 ^ x5
        "eor lr, r0, r1",       // y12 = y13 ^ y14
        "eor r9, r10, r9",      // t0 = x1 ^ x2
        "eor r7, r7, lr",       // t1 = x4 ^ y12
        "str r2, [sp, #16]",    // spill j
        "eor r2, r9, r4",       // y1 = t0 ^ x7
        "eors r6, r7",          // y15 = t1 ^ x5
        "eors r5, r2",          // y5 = y1 ^ x6
        "eor r8, r2, r8",       // y4 = y1 ^ x3
        "eor r7, r7, r10",      // y20 = t1 ^ x1
        "eor r10, r5, r12",     // y3 = y5 ^ y8
        "str r2, [sp, #20]",    // spill y1
        "eor r2, r6, r4",       // y6 = y15 ^ x7
        "str r5, [sp, #24]",    // spill y5
        "and r5, lr, r6",       // t2 = y12 & y15
        "str lr, [sp, #28]",    // spill y12
        "eor lr, r6, r9",       // y10 = y15 ^ t0
        "str r6, [sp, #32]",    // spill y15
        "and r6, r8, r4",       // t5 = y4 & x7
        "eors r6, r5",          // t6 = t5 ^ t2
        "str r8, [sp, #36]",    // spill y4
        "and r8, r10, r2",      // t3 = y3 & y6
        "str r2, [sp, #40]",    // spill y6
        "eor r2, r7, r3",       // y11 = y20 ^ y9
        "eor r8, r8, r5",       // t4 = t3 ^ t2
        "and r5, r3, r2",       // t12 = y9 & y11
        "str r10, [sp, #44]",   // spill y3
        "and r10, r12, lr",     // t15 = y8 & y10
        "str r3, [sp, #48]",    // spill y9
        "eor r3, lr, r12",      // y19 = y10 ^ y8
        "str r12, [sp, #52]",   // spill y8
        "eor r12, lr, r2",      // y17 = y10 ^ y11
        "str lr, [sp, #56]",    // spill y10
        "and lr, r1, r12",      // t13 = y14 & y17
        "eor r9, r9, r2",       // y16 = t0 ^ y11
        "eor r10, r10, r5",     // t16 = t15 ^ t12
        "str r12, [sp, #60]",   // spill y17
        "eor r12, r11, r9",     // y18 = x0 ^ y16
        "eor lr, lr, r5",       // t14 = t13 ^ t12
        "eor r6, r6, r10",      // t18 = t6 ^ t16
        "eor r8, r8, lr",       // t17 = t4 ^ t14
        "and r5, r0, r9",       // t7 = y13 & y16
        "eors r6, r3",          // t22 = t18 ^ y19
        "eor r8, r8, r7",       // t21 = t17 ^ y20
        "ldr r3, [sp, #24]",    // reload y5
        "ldr r7, [sp, #20]",    // reload y1
        "str r1, [sp, #64]",    // spill y14
        "and r1, r3, r7",       // t8 = y5 & y1
        "eors r1, r5",          // t9 = t8 ^ t7
        "eor r11, r7, r11",     // y2 = y1 ^ x0
        "eor r7, r4, r2",       // y7 = x7 ^ y11
        "eor r1, r1, lr",       // t19 = t9 ^ t14
        "and lr, r11, r7",      // t10 = y2 & y7
        "eor lr, lr, r5",       // t11 = t10 ^ t7
        "eor r5, r8, r6",       // t25 = t21 ^ t22
        "eor lr, lr, r10",      // t20 = t11 ^ t16
        "eor r10, r0, r9",      // y21 = y13 ^ y16
        "eor r1, r1, r10",      // t23 = t19 ^ y21
        "and r8, r8, r1",       // t26 = t21 & t23
        "eor lr, lr, r12",      // t24 = t20 ^ y18
        "eor r10, r6, r8",      // t31 = t22 ^ t26
        "eor r8, lr, r8",       // t27 = t24 ^ t26
        "and r12, r5, r8",      // t28 = t25 & t27
        "eor r12, r12, r6",     // t29 = t28 ^ t22
        "eor r6, r1, lr",       // t30 = t23 ^ t24
        "and r10, r10, r6",     // t32 = t31 & t30
        "eor r10, r10, lr",     // t33 = t32 ^ t24
        "eor r6, r8, r10",      // t35 = t27 ^ t33
        "and lr, lr, r6",       // t36 = t24 & t35
        "eor r1, r1, r10",      // t34 = t23 ^ t33
        "and r11, r12, r11",    // z14 = t29 & y2
        "and r4, r10, r4",      // z2 = t33 & x7
        "eor r1, lr, r1",       // t37 = t36 ^ t34
        "eor r8, r8, lr",       // t38 = t27 ^ t36
        "and r8, r12, r8",      // t39 = t29 & t38
        "and r7, r12, r7",      // z5 = t29 & y7
        "eor r5, r5, r8",       // t40 = t25 ^ t39
        "eor r6, r12, r10",     // t42 = t29 ^ t33
        "ldr r8, [sp, #48]",    // reload y9
        "and r8, r6, r8",       // z15 = t42 & y9
        "eor r12, r12, r5",     // t43 = t29 ^ t40
        "eor lr, r10, r1",      // t44 = t33 ^ t37
        "str r11, [sp, #68]",   // spill z14
        "ldr r11, [sp, #36]",   // reload y4
        "and r10, r10, r11",    // z11 = t33 & y4
        "ldr r11, [sp, #32]",   // reload y15
        "and r11, lr, r11",     // z0 = t44 & y15
        "and r0, r12, r0",      // z12 = t43 & y13
        "and r12, r12, r9",     // z3 = t43 & y16
        "ands r3, r5",          // z13 = t40 & y5
        "ldr r9, [sp, #44]",    // reload y3
        "and r9, r1, r9",       // z10 = t37 & y3
        "ands r2, r6",          // z6 = t42 & y11
        "eor r10, r9, r10",     // t47 = z10 ^ z11
        "str r10, [sp, #72]",   // spill t47
        "ldr r10, [sp, #28]",   // reload y12
        "and lr, lr, r10",      // z9 = t44 & y12
        "ldr r10, [sp, #20]",   // reload y1
        "and r10, r5, r10",     // z4 = t40 & y1
        "eors r5, r1",          // t41 = t40 ^ t37
        "eor lr, lr, r9",       // t49 = z9 ^ z10
        "eors r6, r5",          // t45 = t42 ^ t41
        "eor r11, r11, r12",    // t53 = z0 ^ z3
        "ldr r9, [sp, #64]",    // reload y14
        "and r9, r6, r9",       // z16 = t45 & y14
        "eors r3, r7",          // t48 = z5 ^ z13
        "str r1, [sp, #76]",    // spill t37
        "ldr r1, [sp, #60]",    // reload y17
        "ands r6, r1",          // z7 = t45 & y17
        "eors r2, r6",          // t54 = z6 ^ z7
        "eor r1, r4, r0",       // t50 = z2 ^ z12
        "eor r8, r8, r9",       // t46 = z15 ^ z16
        "eors r4, r7",          // t51 = z2 ^ z5
        "eor r1, r1, r11",      // t57 = t50 ^ t53
        "eor r12, r12, r2",     // t59 = z3 ^ t54
        "ldr r2, [sp, #56]",    // reload y10
        "ands r2, r5",          // z8 = t41 & y10
        "eor r7, r10, r8",      // t58 = z4 ^ t46
        "eors r0, r3",          // t56 = z12 ^ t48
        "eor lr, lr, r7",       // t63 = t49 ^ t58
        "eors r6, r2",          // t52 = z7 ^ z8
        "eors r6, r7",          // t62 = t52 ^ t58
        "ldr r2, [sp, #76]",    // reload t37
        "ldr r7, [sp, #40]",    // reload y6
        "ands r2, r7",          // z1 = t37 & y6
        "ldr r7, [sp, #68]",    // reload z14
        "eors r7, r1",          // t61 = z14 ^ t57
        "eor r8, r8, r1",       // t60 = t46 ^ t57
        "eors r7, r6",          // t65 = t61 ^ t62
        "eor r2, r2, lr",       // t66 = z1 ^ t63
        "eors r4, r2",          // s4 = t51 ^ t66
        "eor r3, r3, r8",       // s7 = t48 ^ t60
        "ldr r1, [sp, #72]",    // reload t47
        "eors r1, r7",          // s5 = t47 ^ t65
        "eors r0, r6",          // s6 = t56 ^ t62
        "eor r10, r10, r12",    // t64 = z4 ^ t59
        "ldr r6, [sp, #52]",    // reload y8
        "ands r5, r6",          // z17 = t41 & y8
        "eor r9, r9, r5",       // t55 = z16 ^ z17
        "eor r7, r10, r7",      // t67 = t64 ^ t65
        "eor r12, r12, lr",     // s0 = t59 ^ t63
        "eor r11, r11, r2",     // s3 = t53 ^ t66
        "eor r10, r10, r11",    // s1 = t64 ^ s3
        "eor r9, r9, r7",       // s2 = t55 ^ t67
        "ldr r2, [sp, #16]",    // reload j
        "tbh [pc, r2, lsl #1]", // on j: MC_j, or 4: no MixColumns
        "2:",
        ".hword (11f - 2b) / 2", // j = 0
        ".hword (12f - 2b) / 2", // j = 1
        ".hword (13f - 2b) / 2", // j = 2
        ".hword (14f - 2b) / 2", // j = 3
        ".hword (10f - 2b) / 2", // j = 4
        "5:",
        "sub r3, r3, #65536",   // less the flag
        "str r3, [sp, #12]",    // the number of rounds
        "ldr r3, [r0, #0]",     // slice 0: s7
        "ldr r1, [r0, #8]",     // slice 2: s5
        "ldr r4, [r0, #12]",    // slice 3: s4
        "ldr r11, [r0, #16]",   // slice 4: s3
        "ldr r9, [r0, #20]",    // slice 5: s2
        "ldr r10, [r0, #24]",   // slice 6: s1
        "ldr r12, [r0, #28]",   // slice 7: s0
        "ldr r0, [r0, #4]",     // slice 1: s6
        "tbh [pc, r2, lsl #1]", // on j: MC_j, or 4: nothing
        "3:",
        ".hword (11f - 3b) / 2", // j = 0
        ".hword (12f - 3b) / 2", // j = 1
        ".hword (13f - 3b) / 2", // j = 2
        ".hword (14f - 3b) / 2", // j = 3
        ".hword (10f - 3b) / 2", // j = 4
        "10:",
        "mov lr, r4",   // move s4
        "mov r4, r3",   // s7 in place
        "mov r5, r0",   // s6 in place
        "mov r6, r1",   // s5 in place
        "mov r7, lr",   // s4 in place
        "mov r8, r11",  // s3 in place
        "mov r11, r12", // s0 in place
        "b 9f",         // the loop
        "11:",
        "eor r5, r3, r3, ror #8",   // t0 = s7 ^ (s7 >>> 8)
        "eor r6, r0, r0, ror #8",   // t1 = s6 ^ (s6 >>> 8)
        "eor r7, r1, r1, ror #8",   // t2 = s5 ^ (s5 >>> 8)
        "eor r8, r4, r4, ror #8",   // t3 = s4 ^ (s4 >>> 8)
        "eor lr, r11, r11, ror #8", // t4 = s3 ^ (s3 >>> 8)
        "eor r2, r9, r9, ror #8",   // t5 = s2 ^ (s2 >>> 8)
        "str r2, [sp, #80]",        // spill t5
        "eor r2, r10, r10, ror #8", // t6 = s1 ^ (s1 >>> 8)
        "str r2, [sp, #84]",        // spill t6
        "eor r2, r12, r12, ror #8", // t7 = s0 ^ (s0 >>> 8)
        "eor r3, r2, r3, ror #8",   // o0_0 = t7 ^ (s7 >>> 8)
        "eor r3, r3, r5, ror #16",  // o0 = o0_0 ^ (t0 >>> 16)
        "str r12, [sp, #88]",       // spill s0
        "mov r12, r4",              // move s4
        "mov r4, r3",               // o0 in place
        "eors r5, r2",              // o1_0 = t0 ^ t7
        "eor r5, r5, r0, ror #8",   // o1_1 = o1_0 ^ (s6 >>> 8)
        "eor r5, r5, r6, ror #16",  // o1 = o1_1 ^ (t1 >>> 16)
        "eor r6, r6, r1, ror #8",   // o2_0 = t1 ^ (s5 >>> 8)
        "eor r6, r6, r7, ror #16",  // o2 = o2_0 ^ (t2 >>> 16)
        "eors r7, r2",              // o3_0 = t2 ^ t7
        "eor r7, r7, r12, ror #8",  // o3_1 = o3_0 ^ (s4 >>> 8)
        "eor r7, r7, r8, ror #16",  // o3 = o3_1 ^ (t3 >>> 16)
        "eor r8, r8, r2",           // o4_0 = t3 ^ t7
        "eor r8, r8, r11, ror #8",  // o4_1 = o4_0 ^ (s3 >>> 8)
        "eor r8, r8, lr, ror #16",  // o4 = o4_1 ^ (t4 >>> 16)
        "eor lr, lr, r9, ror #8",   // o5_0 = t4 ^ (s2 >>> 8)
        "ldr r0, [sp, #80]",        // reload t5
        "eor r9, lr, r0, ror #16",  // o5 = o5_0 ^ (t5 >>> 16)
        "eor r0, r0, r10, ror #8",  // o6_0 = t5 ^ (s1 >>> 8)
        "ldr r1, [sp, #84]",        // reload t6
        "eor r10, r0, r1, ror #16", // o6 = o6_0 ^ (t6 >>> 16)
        "ldr r0, [sp, #88]",        // reload s0
        "eor r1, r1, r0, ror #8",   // o7_0 = t6 ^ (s0 >>> 8)
        "eor r11, r1, r2, ror #16", // o7 = o7_0 ^ (t7 >>> 16)
        "b 9f",                     // the loop
        "13:",
        "eor r5, r3, r3, ror #24",    // wn0 = s7 ^ (s7 >>> 24)
        "mov r6, #0xf0f0f0f0",        // cf0f0f0f0
        "and r5, r6, r5, ror #12",    // fn0 = cf0f0f0f0 & (wn0 >>> 12)
        "eor r5, r5, r3, ror #12",    // n0 = fn0 ^ (s7 >>> 12)
        "eors r3, r5",                // t0 = s7 ^ n0
        "eor r7, r0, r0, ror #24",    // wn1 = s6 ^ (s6 >>> 24)
        "and r7, r6, r7, ror #12",    // fn1 = cf0f0f0f0 & (wn1 >>> 12)
        "eor r7, r7, r0, ror #12",    // n1 = fn1 ^ (s6 >>> 12)
        "eors r0, r7",                // t1 = s6 ^ n1
        "eor r8, r1, r1, ror #24",    // wn2 = s5 ^ (s5 >>> 24)
        "and r8, r6, r8, ror #12",    // fn2 = cf0f0f0f0 & (wn2 >>> 12)
        "eor r8, r8, r1, ror #12",    // n2 = fn2 ^ (s5 >>> 12)
        "eor r1, r1, r8",             // t2 = s5 ^ n2
        "eor lr, r4, r4, ror #24",    // wn3 = s4 ^ (s4 >>> 24)
        "and lr, r6, lr, ror #12",    // fn3 = cf0f0f0f0 & (wn3 >>> 12)
        "eor lr, lr, r4, ror #12",    // n3 = fn3 ^ (s4 >>> 12)
        "eor r4, r4, lr",             // t3 = s4 ^ n3
        "eor r2, r11, r11, ror #24",  // wn4 = s3 ^ (s3 >>> 24)
        "and r2, r6, r2, ror #12",    // fn4 = cf0f0f0f0 & (wn4 >>> 12)
        "eor r2, r2, r11, ror #12",   // n4 = fn4 ^ (s3 >>> 12)
        "eor r11, r11, r2",           // t4 = s3 ^ n4
        "str r11, [sp, #80]",         // spill t4
        "eor r11, r9, r9, ror #24",   // wn5 = s2 ^ (s2 >>> 24)
        "and r11, r6, r11, ror #12",  // fn5 = cf0f0f0f0 & (wn5 >>> 12)
        "eor r11, r11, r9, ror #12",  // n5 = fn5 ^ (s2 >>> 12)
        "eor r9, r9, r11",            // t5 = s2 ^ n5
        "str r9, [sp, #84]",          // spill t5
        "eor r9, r10, r10, ror #24",  // wn6 = s1 ^ (s1 >>> 24)
        "and r9, r6, r9, ror #12",    // fn6 = cf0f0f0f0 & (wn6 >>> 12)
        "eor r9, r9, r10, ror #12",   // n6 = fn6 ^ (s1 >>> 12)
        "eor r10, r10, r9",           // t6 = s1 ^ n6
        "str r10, [sp, #88]",         // spill t6
        "eor r10, r12, r12, ror #24", // wn7 = s0 ^ (s0 >>> 24)
        "and r6, r6, r10, ror #12",   // fn7 = cf0f0f0f0 & (wn7 >>> 12)
        "eor r6, r6, r12, ror #12",   // n7 = fn7 ^ (s0 >>> 12)
        "eor r12, r12, r6",           // t7 = s0 ^ n7
        "eor r5, r12, r5",            // o0_0 = t7 ^ n0
        "eor r5, r5, r3, ror #16",    // o0 = o0_0 ^ (t0 >>> 16)
        "mov r10, r4",                // move t3
        "mov r4, r5",                 // o0 in place
        "eor r3, r3, r12",            // o1_0 = t0 ^ t7
        "eors r3, r7",                // o1_1 = o1_0 ^ n1
        "eor r5, r3, r0, ror #16",    // o1 = o1_1 ^ (t1 >>> 16)
        "eor r0, r0, r8",             // o2_0 = t1 ^ n2
        "eor r0, r0, r1, ror #16",    // o2 = o2_0 ^ (t2 >>> 16)
        "mov r3, r6",                 // move n7
        "mov r6, r0",                 // o2 in place
        "eor r1, r1, r12",            // o3_0 = t2 ^ t7
        "eor r1, r1, lr",             // o3_1 = o3_0 ^ n3
        "eor r7, r1, r10, ror #16",   // o3 = o3_1 ^ (t3 >>> 16)
        "eor r10, r10, r12",          // o4_0 = t3 ^ t7
        "eor r10, r10, r2",           // o4_1 = o4_0 ^ n4
        "ldr r0, [sp, #80]",          // reload t4
        "eor r8, r10, r0, ror #16",   // o4 = o4_1 ^ (t4 >>> 16)
        "eor r0, r0, r11",            // o5_0 = t4 ^ n5
        "ldr r1, [sp, #84]",          // reload t5
        "eor r0, r0, r1, ror #16",    // o5 = o5_0 ^ (t5 >>> 16)
        "mov r2, r9",                 // move n6
        "mov r9, r0",                 // o5 in place
        "eors r1, r2",                // o6_0 = t5 ^ n6
        "ldr r0, [sp, #88]",          // reload t6
        "eor r10, r1, r0, ror #16",   // o6 = o6_0 ^ (t6 >>> 16)
        "eors r0, r3",                // o7_0 = t6 ^ n7
        "eor r11, r0, r12, ror #16",  // o7 = o7_0 ^ (t7 >>> 16)
        "b 9f",                       // the loop
        "12:",
        "eor r5, r3, r3, ror #24",   // wn0 = s7 ^ (s7 >>> 24)
        "mov r6, #0xc0c0c0c0",       // cc0c0c0c0
        "and r5, r6, r5, ror #10",   // fn0 = cc0c0c0c0 & (wn0 >>> 10)
        "eor r5, r5, r3, ror #10",   // n0 = fn0 ^ (s7 >>> 10)
        "eors r3, r5",               // t0 = s7 ^ n0
        "eor r7, r0, r0, ror #24",   // wn1 = s6 ^ (s6 >>> 24)
        "and r7, r6, r7, ror #10",   // fn1 = cc0c0c0c0 & (wn1 >>> 10)
        "eor r7, r7, r0, ror #10",   // n1 = fn1 ^ (s6 >>> 10)
        "eors r0, r7",               // t1 = s6 ^ n1
        "eor r8, r1, r1, ror #24",   // wn2 = s5 ^ (s5 >>> 24)
        "and r8, r6, r8, ror #10",   // fn2 = cc0c0c0c0 & (wn2 >>> 10)
        "eor r8, r8, r1, ror #10",   // n2 = fn2 ^ (s5 >>> 10)
        "eor r1, r1, r8",            // t2 = s5 ^ n2
        "eor lr, r4, r4, ror #24",   // wn3 = s4 ^ (s4 >>> 24)
        "and lr, r6, lr, ror #10",   // fn3 = cc0c0c0c0 & (wn3 >>> 10)
        "eor lr, lr, r4, ror #10",   // n3 = fn3 ^ (s4 >>> 10)
        "eor r4, r4, lr",            // t3 = s4 ^ n3
        "eor r2, r11, r11, ror #24", // wn4 = s3 ^ (s3 >>> 24)
        "and r2, r6, r2, ror #10",   // fn4 = cc0c0c0c0 & (wn4 >>> 10)
        "eor r2, r2, r11, ror #10",  // n4 = fn4 ^ (s3 >>> 10)
        "eor r11, r11, r2",          // t4 = s3 ^ n4
        "str r2, [sp, #80]",         // spill n4
        "eor r2, r9, r9, ror #24",   // wn5 = s2 ^ (s2 >>> 24)
        "and r2, r6, r2, ror #10",   // fn5 = cc0c0c0c0 & (wn5 >>> 10)
        "eor r2, r2, r9, ror #10",   // n5 = fn5 ^ (s2 >>> 10)
        "eor r9, r9, r2",            // t5 = s2 ^ n5
        "str r2, [sp, #84]",         // spill n5
        "eor r2, r10, r10, ror #24", // wn6 = s1 ^ (s1 >>> 24)
        "and r2, r6, r2, ror #10",   // fn6 = cc0c0c0c0 & (wn6 >>> 10)
        "eor r2, r2, r10, ror #10",  // n6 = fn6 ^ (s1 >>> 10)
        "eor r10, r10, r2",          // t6 = s1 ^ n6
        "str r2, [sp, #88]",         // spill n6
        "eor r2, r12, r12, ror #24", // wn7 = s0 ^ (s0 >>> 24)
        "and r6, r6, r2, ror #10",   // fn7 = cc0c0c0c0 & (wn7 >>> 10)
        "eor r6, r6, r12, ror #10",  // n7 = fn7 ^ (s0 >>> 10)
        "eor r12, r12, r6",          // t7 = s0 ^ n7
        "eor r2, r3, r3, ror #24",   // wg0 = t0 ^ (t0 >>> 24)
        "str r6, [sp, #92]",         // spill n7
        "mov r6, #0xf0f0f0f0",       // cf0f0f0f0
        "and r2, r6, r2, ror #20",   // fg0 = cf0f0f0f0 & (wg0 >>> 20)
        "eor r5, r12, r5",           // o0_0 = t7 ^ n0
        "eors r5, r2",               // o0_1 = o0_0 ^ fg0
        "eor r5, r5, r3, ror #20",   // o0 = o0_1 ^ (t0 >>> 20)
        "mov r2, r4",                // move t3
        "mov r4, r5",                // o0 in place
        "eor r5, r0, r0, ror #24",   // wg1 = t1 ^ (t1 >>> 24)
        "and r5, r6, r5, ror #20",   // fg1 = cf0f0f0f0 & (wg1 >>> 20)
        "eor r3, r3, r12",           // o1_0 = t0 ^ t7
        "eors r3, r7",               // o1_1 = o1_0 ^ n1
        "eors r3, r5",               // o1_2 = o1_1 ^ fg1
        "eor r5, r3, r0, ror #20",   // o1 = o1_2 ^ (t1 >>> 20)
        "eor r3, r1, r1, ror #24",   // wg2 = t2 ^ (t2 >>> 24)
        "and r3, r6, r3, ror #20",   // fg2 = cf0f0f0f0 & (wg2 >>> 20)
        "eor r0, r0, r8",            // o2_0 = t1 ^ n2
        "eors r0, r3",               // o2_1 = o2_0 ^ fg2
        "eor r0, r0, r1, ror #20",   // o2 = o2_1 ^ (t2 >>> 20)
        "mov r3, r6",                // move cf0f0f0f0
        "mov r6, r0",                // o2 in place
        "eor r0, r2, r2, ror #24",   // wg3 = t3 ^ (t3 >>> 24)
        "and r0, r3, r0, ror #20",   // fg3 = cf0f0f0f0 & (wg3 >>> 20)
        "eor r1, r1, r12",           // o3_0 = t2 ^ t7
        "eor r1, r1, lr",            // o3_1 = o3_0 ^ n3
        "eors r1, r0",               // o3_2 = o3_1 ^ fg3
        "eor r7, r1, r2, ror #20",   // o3 = o3_2 ^ (t3 >>> 20)
        "eor r0, r11, r11, ror #24", // wg4 = t4 ^ (t4 >>> 24)
        "and r0, r3, r0, ror #20",   // fg4 = cf0f0f0f0 & (wg4 >>> 20)
        "eor r2, r2, r12",           // o4_0 = t3 ^ t7
        "ldr r1, [sp, #80]",         // reload n4
        "eors r2, r1",               // o4_1 = o4_0 ^ n4
        "eors r2, r0",               // o4_2 = o4_1 ^ fg4
        "eor r8, r2, r11, ror #20",  // o4 = o4_2 ^ (t4 >>> 20)
        "eor r0, r9, r9, ror #24",   // wg5 = t5 ^ (t5 >>> 24)
        "and r0, r3, r0, ror #20",   // fg5 = cf0f0f0f0 & (wg5 >>> 20)
        "ldr r1, [sp, #84]",         // reload n5
        "eor r11, r11, r1",          // o5_0 = t4 ^ n5
        "eor r11, r11, r0",          // o5_1 = o5_0 ^ fg5
        "eor r11, r11, r9, ror #20", // o5 = o5_1 ^ (t5 >>> 20)
        "mov r0, r9",                // move t5
        "mov r9, r11",               // o5 in place
        "eor r1, r10, r10, ror #24", // wg6 = t6 ^ (t6 >>> 24)
        "and r1, r3, r1, ror #20",   // fg6 = cf0f0f0f0 & (wg6 >>> 20)
        "ldr r2, [sp, #88]",         // reload n6
        "eors r0, r2",               // o6_0 = t5 ^ n6
        "eors r0, r1",               // o6_1 = o6_0 ^ fg6
        "eor r0, r0, r10, ror #20",  // o6 = o6_1 ^ (t6 >>> 20)
        "mov r1, r10",               // move t6
        "mov r10, r0",               // o6 in place
        "eor r0, r12, r12, ror #24", // wg7 = t7 ^ (t7 >>> 24)
        "and r3, r3, r0, ror #20",   // fg7 = cf0f0f0f0 & (wg7 >>> 20)
        "ldr r0, [sp, #92]",         // reload n7
        "eors r1, r0",               // o7_0 = t6 ^ n7
        "eors r1, r3",               // o7_1 = o7_0 ^ fg7
        "eor r11, r1, r12, ror #20", // o7 = o7_1 ^ (t7 >>> 20)
        "b 9f",                      // the loop
        "14:",
        "eor r5, r3, r3, ror #24",   // wn0 = s7 ^ (s7 >>> 24)
        "mov r6, #0xfcfcfcfc",       // cfcfcfcfc
        "and r5, r6, r5, ror #14",   // fn0 = cfcfcfcfc & (wn0 >>> 14)
        "eor r5, r5, r3, ror #14",   // n0 = fn0 ^ (s7 >>> 14)
        "eors r3, r5",               // t0 = s7 ^ n0
        "eor r7, r0, r0, ror #24",   // wn1 = s6 ^ (s6 >>> 24)
        "and r7, r6, r7, ror #14",   // fn1 = cfcfcfcfc & (wn1 >>> 14)
        "eor r7, r7, r0, ror #14",   // n1 = fn1 ^ (s6 >>> 14)
        "eors r0, r7",               // t1 = s6 ^ n1
        "eor r8, r1, r1, ror #24",   // wn2 = s5 ^ (s5 >>> 24)
        "and r8, r6, r8, ror #14",   // fn2 = cfcfcfcfc & (wn2 >>> 14)
        "eor r8, r8, r1, ror #14",   // n2 = fn2 ^ (s5 >>> 14)
        "eor r1, r1, r8",            // t2 = s5 ^ n2
        "eor lr, r4, r4, ror #24",   // wn3 = s4 ^ (s4 >>> 24)
        "and lr, r6, lr, ror #14",   // fn3 = cfcfcfcfc & (wn3 >>> 14)
        "eor lr, lr, r4, ror #14",   // n3 = fn3 ^ (s4 >>> 14)
        "eor r4, r4, lr",            // t3 = s4 ^ n3
        "eor r2, r11, r11, ror #24", // wn4 = s3 ^ (s3 >>> 24)
        "and r2, r6, r2, ror #14",   // fn4 = cfcfcfcfc & (wn4 >>> 14)
        "eor r2, r2, r11, ror #14",  // n4 = fn4 ^ (s3 >>> 14)
        "eor r11, r11, r2",          // t4 = s3 ^ n4
        "str r2, [sp, #80]",         // spill n4
        "eor r2, r9, r9, ror #24",   // wn5 = s2 ^ (s2 >>> 24)
        "and r2, r6, r2, ror #14",   // fn5 = cfcfcfcfc & (wn5 >>> 14)
        "eor r2, r2, r9, ror #14",   // n5 = fn5 ^ (s2 >>> 14)
        "eor r9, r9, r2",            // t5 = s2 ^ n5
        "str r2, [sp, #84]",         // spill n5
        "eor r2, r10, r10, ror #24", // wn6 = s1 ^ (s1 >>> 24)
        "and r2, r6, r2, ror #14",   // fn6 = cfcfcfcfc & (wn6 >>> 14)
        "eor r2, r2, r10, ror #14",  // n6 = fn6 ^ (s1 >>> 14)
        "eor r10, r10, r2",          // t6 = s1 ^ n6
        "str r2, [sp, #88]",         // spill n6
        "eor r2, r12, r12, ror #24", // wn7 = s0 ^ (s0 >>> 24)
        "and r6, r6, r2, ror #14",   // fn7 = cfcfcfcfc & (wn7 >>> 14)
        "eor r6, r6, r12, ror #14",  // n7 = fn7 ^ (s0 >>> 14)
        "eor r12, r12, r6",          // t7 = s0 ^ n7
        "eor r2, r3, r3, ror #24",   // wg0 = t0 ^ (t0 >>> 24)
        "str r6, [sp, #92]",         // spill n7
        "mov r6, #0xf0f0f0f0",       // cf0f0f0f0
        "and r2, r6, r2, ror #20",   // fg0 = cf0f0f0f0 & (wg0 >>> 20)
        "eor r5, r12, r5",           // o0_0 = t7 ^ n0
        "eors r5, r2",               // o0_1 = o0_0 ^ fg0
        "eor r5, r5, r3, ror #20",   // o0 = o0_1 ^ (t0 >>> 20)
        "mov r2, r4",                // move t3
        "mov r4, r5",                // o0 in place
        "eor r5, r0, r0, ror #24",   // wg1 = t1 ^ (t1 >>> 24)
        "and r5, r6, r5, ror #20",   // fg1 = cf0f0f0f0 & (wg1 >>> 20)
        "eor r3, r3, r12",           // o1_0 = t0 ^ t7
        "eors r3, r7",               // o1_1 = o1_0 ^ n1
        "eors r3, r5",               // o1_2 = o1_1 ^ fg1
        "eor r5, r3, r0, ror #20",   // o1 = o1_2 ^ (t1 >>> 20)
        "eor r3, r1, r1, ror #24",   // wg2 = t2 ^ (t2 >>> 24)
        "and r3, r6, r3, ror #20",   // fg2 = cf0f0f0f0 & (wg2 >>> 20)
        "eor r0, r0, r8",            // o2_0 = t1 ^ n2
        "eors r0, r3",               // o2_1 = o2_0 ^ fg2
        "eor r0, r0, r1, ror #20",   // o2 = o2_1 ^ (t2 >>> 20)
        "mov r3, r6",                // move cf0f0f0f0
        "mov r6, r0",                // o2 in place
        "eor r0, r2, r2, ror #24",   // wg3 = t3 ^ (t3 >>> 24)
        "and r0, r3, r0, ror #20",   // fg3 = cf0f0f0f0 & (wg3 >>> 20)
        "eor r1, r1, r12",           // o3_0 = t2 ^ t7
        "eor r1, r1, lr",            // o3_1 = o3_0 ^ n3
        "eors r1, r0",               // o3_2 = o3_1 ^ fg3
        "eor r7, r1, r2, ror #20",   // o3 = o3_2 ^ (t3 >>> 20)
        "eor r0, r11, r11, ror #24", // wg4 = t4 ^ (t4 >>> 24)
        "and r0, r3, r0, ror #20",   // fg4 = cf0f0f0f0 & (wg4 >>> 20)
        "eor r2, r2, r12",           // o4_0 = t3 ^ t7
        "ldr r1, [sp, #80]",         // reload n4
        "eors r2, r1",               // o4_1 = o4_0 ^ n4
        "eors r2, r0",               // o4_2 = o4_1 ^ fg4
        "eor r8, r2, r11, ror #20",  // o4 = o4_2 ^ (t4 >>> 20)
        "eor r0, r9, r9, ror #24",   // wg5 = t5 ^ (t5 >>> 24)
        "and r0, r3, r0, ror #20",   // fg5 = cf0f0f0f0 & (wg5 >>> 20)
        "ldr r1, [sp, #84]",         // reload n5
        "eor r11, r11, r1",          // o5_0 = t4 ^ n5
        "eor r11, r11, r0",          // o5_1 = o5_0 ^ fg5
        "eor r11, r11, r9, ror #20", // o5 = o5_1 ^ (t5 >>> 20)
        "mov r0, r9",                // move t5
        "mov r9, r11",               // o5 in place
        "eor r1, r10, r10, ror #24", // wg6 = t6 ^ (t6 >>> 24)
        "and r1, r3, r1, ror #20",   // fg6 = cf0f0f0f0 & (wg6 >>> 20)
        "ldr r2, [sp, #88]",         // reload n6
        "eors r0, r2",               // o6_0 = t5 ^ n6
        "eors r0, r1",               // o6_1 = o6_0 ^ fg6
        "eor r0, r0, r10, ror #20",  // o6 = o6_1 ^ (t6 >>> 20)
        "mov r1, r10",               // move t6
        "mov r10, r0",               // o6 in place
        "eor r0, r12, r12, ror #24", // wg7 = t7 ^ (t7 >>> 24)
        "and r3, r3, r0, ror #20",   // fg7 = cf0f0f0f0 & (wg7 >>> 20)
        "ldr r0, [sp, #92]",         // reload n7
        "eors r1, r0",               // o7_0 = t6 ^ n7
        "eors r1, r3",               // o7_1 = o7_0 ^ fg7
        "eor r11, r1, r12, ror #20", // o7 = o7_1 ^ (t7 >>> 20)
        "9:",
        "ldr r3, [sp, #12]",  // rounds left
        "ldr r1, [sp, #4]",   // this round's key
        "subs r3, #1",        // one fewer
        "beq 8f",             // none: return
        "adds r1, #32",       // the next round key
        "str r3, [sp, #12]",  // rounds left
        "str r1, [sp, #4]",   // this round's key
        "ldr r3, [sp, #8]",   // this round's j
        "ldrb r2, [r3, #1]!", // the next j
        "str r3, [sp, #8]",   // this round's j
        "b 1b",               // the next round
        "8:",
        "ldr r2, [sp, #136]",           // the finish: 0, 1 or 2
        "adds r1, #32",                 // the key after the rounds'
        "subs r2, #1",                  // -1, 0 or 1; the flags kept to the SR² test
        "bmi 7f",                       // was 0: nothing
        "ldm r1!, {{r0, r3, r12, lr}}", // its slices 0-3
        "eor r4, r4, r0",               // s0 ^= key[0]
        "eor r5, r5, r3",               // s1 ^= key[1]
        "eor r6, r6, r12",              // s2 ^= key[2]
        "eor r7, r7, lr",               // s3 ^= key[3]
        "ldm r1, {{r0, r3, r12, lr}}",  // its slices 4-7
        "eor r8, r8, r0",               // s4 ^= key[4]
        "eor r9, r9, r3",               // s5 ^= key[5]
        "eor r10, r10, r12",            // s6 ^= key[6]
        "eor r11, r11, lr",             // s7 ^= key[7]
        "beq 7f",                       // was 1: the key only
        "mov r12, #0x0f000f00",         // rows 1 and 3, low nibbles
        "eor r0, r4, r4, lsr #4",       // s0 ^ s0 >> 4
        "and r0, r0, r12",              // t: the nibbles that differ
        "eors r4, r0",                  // s0 ^= t
        "eor r4, r4, r0, lsl #4",       // s0 ^= t << 4
        "eor r0, r5, r5, lsr #4",       // s1 ^ s1 >> 4
        "and r0, r0, r12",              // t: the nibbles that differ
        "eors r5, r0",                  // s1 ^= t
        "eor r5, r5, r0, lsl #4",       // s1 ^= t << 4
        "eor r0, r6, r6, lsr #4",       // s2 ^ s2 >> 4
        "and r0, r0, r12",              // t: the nibbles that differ
        "eors r6, r0",                  // s2 ^= t
        "eor r6, r6, r0, lsl #4",       // s2 ^= t << 4
        "eor r0, r7, r7, lsr #4",       // s3 ^ s3 >> 4
        "and r0, r0, r12",              // t: the nibbles that differ
        "eors r7, r0",                  // s3 ^= t
        "eor r7, r7, r0, lsl #4",       // s3 ^= t << 4
        "eor r0, r8, r8, lsr #4",       // s4 ^ s4 >> 4
        "and r0, r0, r12",              // t: the nibbles that differ
        "eors r8, r0",                  // s4 ^= t
        "eor r8, r8, r0, lsl #4",       // s4 ^= t << 4
        "eor r0, r9, r9, lsr #4",       // s5 ^ s5 >> 4
        "and r0, r0, r12",              // t: the nibbles that differ
        "eors r9, r0",                  // s5 ^= t
        "eor r9, r9, r0, lsl #4",       // s5 ^= t << 4
        "eor r0, r10, r10, lsr #4",     // s6 ^ s6 >> 4
        "and r0, r0, r12",              // t: the nibbles that differ
        "eors r10, r0",                 // s6 ^= t
        "eor r10, r10, r0, lsl #4",     // s6 ^= t << 4
        "eor r0, r11, r11, lsr #4",     // s7 ^ s7 >> 4
        "and r0, r0, r12",              // t: the nibbles that differ
        "eors r11, r0",                 // s7 ^= t
        "eor r11, r11, r0, lsl #4",     // s7 ^= t << 4
        "7:",
        "ldr r0, [sp, #0]",   // the state
        "stm r0, {{r4-r11}}", // its eight slices
        "add sp, #100",
        "pop {{r4-r11, pc}}",
        // END GENERATED
    )
}
