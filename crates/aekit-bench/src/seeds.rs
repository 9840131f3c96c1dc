//! The seeds' own figures, copied from their tables so that every measured
//! table prints beside them. Units are the seeds': the GCM specification's
//! Tables 1 and 3 are cycles per byte on a Motorola G4 (gcc 3.3); the
//! blog's table is seconds, processor cycles and Lisp `cons` bytes for
//! AES-GCM encrypt+decrypt of 10 MiB in Common Lisp; the Cortex-M4 tables
//! are DWT cycle counts on an STM32F407 at 168 MHz (mean of 100 runs).

/// GCM spec Table 1: (aekit strategy, the spec's method, storage as the
/// spec writes it, GHASH cycles/byte on the G4).
pub const SPEC_TABLE1: [(&str, &str, &str, f64); 5] = [
    ("table8", "Simple, 8-bit tables", "65,535 bytes/key", 13.1),
    ("table4", "Simple, 4-bit tables", "8,192 bytes/key", 17.3),
    (
        "shoup8",
        "Shoup's, 8-bit tables",
        "1024 bytes + 4096 bytes/key",
        32.1,
    ),
    (
        "shoup4",
        "Shoup's, 4-bit tables",
        "64 bytes + 256 bytes/key",
        69.3,
    ),
    ("bitserial", "No tables", "16 bytes/key", 119.0),
];

/// The message sizes of GCM spec Table 3, in bytes.
pub const SPEC_TABLE3_SIZES: [usize; 5] = [16, 64, 256, 1024, 8192];

/// GCM spec Table 3: (mode, cycles/byte at each of [`SPEC_TABLE3_SIZES`]).
/// CWC is not measured here (no maintained Rust implementation).
pub const SPEC_TABLE3: [(&str, [f64; 5]); 9] = [
    ("CBC-HMAC-SHA1", [1270.0, 342.0, 124.0, 68.4, 51.2]),
    ("CCM", [159.0, 75.6, 54.5, 49.2, 47.6]),
    ("CWC", [227.0, 102.0, 72.7, 63.3, 61.2]),
    ("EAX", [239.0, 93.8, 59.4, 51.1, 48.0]),
    ("GCM, 64Kb storage", [60.8, 44.8, 36.1, 36.6, 38.1]),
    ("GCM, 8Kb storage", [89.9, 51.9, 42.9, 43.0, 40.1]),
    ("GCM, 4Kb storage", [118.0, 69.1, 46.5, 54.1, 53.5]),
    ("GCM, 256b storage", [179.0, 108.0, 89.5, 85.4, 84.6]),
    ("OCB", [89.4, 43.3, 31.4, 29.3, 29.0]),
];

/// The blog's table: (type, GHASH strategy, table size in bytes, seconds,
/// processor cycles, cons bytes).
pub const BLOG: [(&str, &str, u64, f64, f64, f64); 4] = [
    ("table0", "bitserial", 0, 33.7, 111e9, 14.7e6),
    ("table1", "table1", 2048, 27.2, 89.7e9, 6.68e6),
    ("table4", "table4", 8192, 25.0, 82.6e9, 5.38e6),
    ("table8", "table8", 65536, 24.3, 80.5e9, 4.67e6),
];

/// The Cortex-M4 tables' message sizes (KB) and key sizes (bits).
pub const M4_SIZES_KB: [usize; 4] = [1, 4, 20, 40];
/// The Cortex-M4 tables' key sizes in bits.
pub const M4_KEY_BITS: [usize; 2] = [128, 256];

/// The Cortex-M4 GCTR table: (row, cycles at 1, 4, 20, 40 KB, each for
/// AES-128 then AES-256). Its AES is fixsliced.
pub const M4_GCTR: [(&str, [f64; 8]); 4] = [
    (
        "basic",
        [
            117_456.0,
            158_453.0,
            469_488.0,
            633_461.0,
            2_345_712.0,
            3_166_837.0,
            4_691_312.0,
            6_333_557.0,
        ],
    ),
    (
        "rd1",
        [
            118_666.0,
            164_420.0,
            431_971.0,
            599_738.0,
            2_102_571.0,
            2_920_616.0,
            4_190_821.0,
            5_821_796.0,
        ],
    ),
    (
        "rd1+",
        [
            118_259.0,
            164_366.0,
            411_574.0,
            580_511.0,
            1_980_866.0,
            2_799_003.0,
            3_941_041.0,
            5_572_118.0,
        ],
    ),
    (
        "rd2+",
        [
            119_107.0,
            164_763.0,
            400_915.0,
            568_391.0,
            1_903_287.0,
            2_718_579.0,
            3_781_252.0,
            5_406_764.0,
        ],
    ),
];

/// The Cortex-M4 GHASH table: cycles at 1, 4, 20, 40 KB. The seed's
/// "table-based" row is a 4-bit table of 256 bytes per key (its GHASH
/// section: "a precomputed table (256 bytes)"): Shoup's 4-bit method with its
/// R table, aekit's `shoup4` — not the 8 KiB simple 4-bit table `table4`.
pub const M4_GHASH: [(&str, [f64; 4]); 2] = [
    (
        "karatsuba",
        [158_749.0, 611_293.0, 3_024_861.0, 6_041_821.0],
    ),
    ("shoup4", [79_402.0, 302_390.0, 1_491_670.0, 2_978_281.0]),
];

/// The Cortex-M4 full GCM table: (GHASH, FACE row, cycles as in
/// [`M4_GCTR`]); "table-based" is `shoup4`, as in [`M4_GHASH`].
pub const M4_GCM: [(&str, &str, [f64; 8]); 8] = [
    (
        "shoup4",
        "basic",
        [
            206_377.0,
            250_657.0,
            780_148.0,
            946_962.0,
            3_929_031.0,
            4_659_716.0,
            7_664_348.0,
            9_301_295.0,
        ],
    ),
    (
        "shoup4",
        "rd1",
        [
            207_123.0,
            257_089.0,
            740_507.0,
            915_445.0,
            3_592_621.0,
            4_425_658.0,
            7_156_129.0,
            8_813_752.0,
        ],
    ),
    (
        "shoup4",
        "rd1+",
        [
            206_894.0,
            256_506.0,
            721_076.0,
            893_638.0,
            3_470_230.0,
            4_291_684.0,
            6_904_704.0,
            8_539_152.0,
        ],
    ),
    (
        "shoup4",
        "rd2+",
        [
            207_315.0,
            256_511.0,
            708_758.0,
            880_339.0,
            3_382_451.0,
            4_206_896.0,
            6_724_602.0,
            8_365_109.0,
        ],
    ),
    (
        "karatsuba",
        "basic",
        [
            286_425.0,
            330_735.0,
            1_091_001.0,
            1_257_903.0,
            5_381_427.0,
            6_201_513.0,
            10_744_627.0,
            12_381_353.0,
        ],
    ),
    (
        "karatsuba",
        "rd1",
        [
            287_956.0,
            337_339.0,
            1_054_620.0,
            1_226_429.0,
            5_143_006.0,
            5_967_503.0,
            10_253_496.0,
            11_893_853.0,
        ],
    ),
    (
        "karatsuba",
        "rd1+",
        [
            287_320.0,
            336_580.0,
            1_033_309.0,
            1_204_553.0,
            5_011_815.0,
            5_833_415.0,
            9_984_955.0,
            11_619_500.0,
        ],
    ),
    (
        "karatsuba",
        "rd2+",
        [
            288_077.0,
            337_182.0,
            1_022_429.0,
            1_193_035.0,
            4_938_363.0,
            5_756_741.0,
            9_833_288.0,
            11_461_381.0,
        ],
    ),
];

/// The seed figure for `row` at size index `s` and key index `k` of a
/// Cortex-M4 table laid out as [`M4_GCTR`].
pub fn m4_cell(cells: &[f64; 8], s: usize, k: usize) -> f64 {
    cells[2 * s + k]
}

/// The AETHER paper's Table 3 (S-boxes): (S-box, width in bits, log2 DP,
/// log2 C², algebraic degree, full diffusion). Rows whose S-box is known
/// here; the table also lists BipBip, SPEEDY, Gleek and QARMAv2.
pub const AETHER_TABLE3: [(&str, u32, f64, f64, u32, bool); 5] = [
    ("AES", 8, -6.0, -6.0, 7, true),
    ("Orthros", 4, -2.0, -2.0, 3, true),
    ("Midori (Sb0)", 4, -2.0, -2.0, 3, false),
    ("Midori (Sb1)", 4, -2.0, -2.0, 3, true),
    ("PRINCE", 4, -2.0, -2.0, 3, true),
];

/// The AETHER paper's Table 4: (matrix, branch number). The 8 × 8 and
/// 32 × 32 binary matrices (Aslan–Sakalli, Akleylek et al.) are not given
/// in the seed.
pub const AETHER_TABLE4: [(&str, u32); 5] = [
    ("MDS matrix in AES", 5),
    ("4 × 4 binary matrix (Midori)", 4),
    ("8 × 8 binary matrix", 5),
    ("16 × 16 binary matrix (AETHER)", 8),
    ("32 × 32 binary matrix", 12),
];

/// The AETHER paper's Table 5: (inner function, construction, log2 DCP_max
/// of the construction, log2 DCP_max of one round).
pub const AETHER_TABLE5: [(&str, &str, f64, f64); 4] = [
    ("F_AES", "F_AES ∘ F_AES", -30.0, -6.0),
    ("F_8", "F_8 ∘ F_8", -32.0, -10.0),
    ("F_16", "S_layer ∘ F_16 (AETHER's F), twice", -32.0, -16.0),
    ("F_32", "S_layer ∘ F_32", -48.0, -24.0),
];

/// The AETHER paper's Table 6: (#S, #M, total, searched — `None` for all,
/// or how many — and found).
pub const AETHER_TABLE6: [(usize, usize, u64, Option<u64>, u64); 28] = [
    (4, 1, 96, None, 16),
    (4, 2, 72, None, 0),
    (4, 3, 16, None, 0),
    (5, 2, 600, None, 0),
    (5, 3, 200, None, 0),
    (5, 4, 25, None, 0),
    (6, 2, 5400, None, 54),
    (6, 3, 2400, None, 0),
    (6, 4, 450, None, 0),
    (6, 5, 36, None, 0),
    (7, 3, 29_400, None, 0),
    (7, 4, 7350, None, 0),
    (7, 5, 882, None, 0),
    (7, 6, 49, None, 0),
    (8, 3, 376_320, None, 0),
    (8, 4, 117_600, None, 0),
    (8, 5, 18_816, None, 0),
    (8, 6, 1568, None, 0),
    (8, 7, 64, None, 0),
    (9, 3, 5_080_320, None, 8478),
    (9, 4, 1_905_120, None, 0),
    (9, 5, 381_024, None, 0),
    (9, 6, 42_336, None, 0),
    (9, 7, 2592, None, 0),
    (9, 8, 81, None, 0),
    (10, 4, 31_752_000, None, 0),
    (10, 5, 38_102_400, None, 0),
    (11, 4, 548_856_000, Some(1 << 26), 0),
];

/// The AETHER paper's Table 7: lower bounds on active F per number of
/// initialization rounds, 1 to 16.
pub const AETHER_TABLE7: [u32; 16] = [2, 4, 8, 12, 16, 19, 22, 24, 28, 34, 36, 39, 43, 45, 48, 50];
