/*
 * AES-128/192/256 in counter mode on a GPU: the kernel of aekit's CUDA
 * keystream producer (`cuda/driver.rs`), compiled at run time by NVRTC for the GPU
 * that is present, and compiled as plain C by the host tests
 * (`host_test.rs`) so that its arithmetic is checked on every machine.
 *
 * WHAT IT COMPUTES
 *   For each job (one security association's fill request) and each
 *   k < count: out[job.out + k] = AES_K(counter(job.first + k)), where the
 *   counter block of a linear index i is (crate::keystream::CounterSpace)
 *     RFC 4106 per packet:  salt || be64(i / b) || be32(i % b + 1)
 *     continuous (seed):    salt || be32(0) || be64(i)
 *   b being the counter blocks reserved per packet. One launch serves many
 *   jobs with their own keys: the GPU service batches the requests of many
 *   SAs into one job table; a single producer is the one-job case.
 *
 * REPRESENTATION
 *   The state is four 32-bit columns, each read little-endian from the
 *   16-byte block (byte 4c + r is bits 8r..8r+7 of column c), so a counter
 *   block and the output are plain 16-byte loads and stores and the round
 *   keys are aekit's key schedule bytes reinterpreted (FIPS-197 §5.2: the
 *   w[i] words laid end to end). In this order one round (FIPS-197 §5.1,
 *   SubBytes, ShiftRows, MixColumns, AddRoundKey) is, for column j,
 *     t_j = Te0[s_j.b0] ^ rotl8(Te0[s_{j+1}.b1]) ^ rotl16(Te0[s_{j+2}.b2])
 *           ^ rotl24(Te0[s_{j+3}.b3]) ^ rk_j
 *   with Te0[x] = (2·S[x], S[x], S[x], 3·S[x]) as bytes 0..3: the other
 *   three T-tables of Daemen and Rijmen's description are rotations of
 *   the first, done by the funnel shifter on the GPU. The last round has
 *   no MixColumns and takes S[x], which is byte 1 of Te0[x]: one PRMT
 *   (__byte_perm) gathers byte 1 of two entries, a second joins two such
 *   halves, so the last round needs no S-box table of its own.
 *
 * STORAGE
 *   Te0 lives in shared memory, replicated 32 times (256 x 32 words,
 *   32 KiB per CUDA block): lane l of a warp reads copy l, which sits in
 *   bank l, so the 32 random lookups of a warp never conflict on a bank.
 *   This is the layout of C. Tezcan, "Optimization of Advanced Encryption
 *   Standard on Graphics Processing Units", IEEE Access 9 (2021) (the
 *   rate it reports: docs/GPU.md, beside this kernel's). The
 *   table is built by each CUDA block from the S-box in constant memory (a 1 KiB
 *   read, broadcast to the warp). Round keys are uploaded once per SA into
 *   a key-slot array in device memory and copied into shared memory by
 *   each CUDA block: every lane reads the same word, a broadcast.
 *
 * THE TWO ROUND FUNCTIONS
 *   `ttable`: the rounds above, 16 lookups and 12 rotations per round.
 *   `byteperm`: the same 16 lookups, but used only for S[x] (byte 1 of the
 *   entry), four gathered into a column by three PRMTs, and MixColumns
 *   computed on the packed column: with a = the column and
 *   t = a ^ rotr8(a), MixColumns(a) = xtime(t) ^ rotr8(a) ^ rotr16(a)
 *   ^ rotr24(a), xtime on four bytes at once being
 *   ((t & 0x7f7f7f7f) << 1) ^ (((t >> 7) & 0x01010101) * 0x1b).
 *   The byte-perm round trades the rotations for more integer work; it is
 *   what a table-free (bitsliced) S-box would sit inside. Both are built
 *   and selectable; `aekit-bench gpu` times both.
 *
 * WHICH ONE THE PRODUCER USES: `ttable`. A lookup plus a funnel-shift
 *   rotation is two instructions per byte, where the byte-perm round
 *   spends about six integer instructions per column on MixColumns beside
 *   the same 16 lookups; with the 32 copies removing bank conflicts,
 *   shared memory is not the limit, the integer pipes are. The measured
 *   rates, and how little the blocks per thread move them, are in
 *   docs/GPU.md ("Measured").
 *
 * WORK PER THREAD
 *   A CUDA block of `blockDim.x` threads takes chunks of blockDim.x * bpt
 *   counter blocks of its job; thread t encrypts blocks t, t + blockDim.x,
 *   ... of the chunk, so a warp's 16-byte stores are contiguous (512
 *   bytes, coalesced). The RFC 4106 division i / b is done once per chunk
 *   per thread; the next block's packet and index follow by adding the
 *   quotient and remainder of blockDim.x / b, with one carry.
 *
 * NOT CONSTANT-TIME: table lookups at secret-dependent addresses. Shared
 *   memory timing is not observable to another process on the same GPU in
 *   any attack published for this layout, but this is a T-table AES and is
 *   documented as such, like `aes::Strategy::Table`.
 *
 * REJECTED: one copy of the table (bank conflicts serialize a warp's
 *   lookups up to 32-fold), four separate T-tables (four times the shared
 *   memory, fewer resident blocks), round keys as kernel parameters (they
 *   differ per job in a batched launch).
 */

#if defined(__CUDACC__) || defined(__CUDACC_RTC__)
#define AEK_CUDA 1
typedef unsigned char u8;
typedef unsigned int u32;
typedef unsigned long long u64;
#define AEK_DEV __device__ __forceinline__
#define AEK_CONSTANT __constant__
#define AEK_ROTL(x, n) __funnelshift_l((x), (x), (n))
#define AEK_PERM(x, y, s) __byte_perm((x), (y), (s))
typedef uint4 aek_out;
#define AEK_STORE(p, a, b, c, d) (*(p) = make_uint4((a), (b), (c), (d)))
#else
#include <stdint.h>
typedef uint8_t u8;
typedef uint32_t u32;
typedef uint64_t u64;
#define AEK_DEV static inline
#define AEK_CONSTANT static const
#define AEK_ROTL(x, n) (((x) << (n)) | ((x) >> (32 - (n))))
/* __byte_perm for selectors without the sign-replicate mode: byte k of the
 * result is byte ((s >> 4k) & 7) of the eight bytes y:x. */
static inline u32 aek_perm(u32 x, u32 y, u32 s)
{
    u64 both = ((u64)y << 32) | x;
    u32 r = 0;
    for (int k = 0; k < 4; k++) {
        r |= (u32)((both >> (8 * ((s >> (4 * k)) & 7))) & 0xff) << (8 * k);
    }
    return r;
}
#define AEK_PERM(x, y, s) aek_perm((x), (y), (s))
typedef struct { u32 x, y, z, w; } aek_out;
#define AEK_STORE(p, a, b, c, d) \
    do { (p)->x = (a); (p)->y = (b); (p)->z = (c); (p)->w = (d); } while (0)
#endif

/* One fill request. 64 bytes; the Rust side (`cuda/mod.rs`, `Job`) has the same
 * layout and asserts its size at compile time. */
typedef struct aek_job {
    u64 first;      /* linear index of the job's first counter block */
    u64 count;      /* counter blocks in the job */
    u64 out;        /* where the job's first block goes, in blocks */
    u64 per_packet; /* RFC 4106: counter blocks per packet; 0: continuous */
    u32 salt;       /* the 4 salt bytes as a little-endian word */
    u32 key;        /* key slot: round keys at keys[AEK_KEY_WORDS * key] */
    u32 rounds;     /* 10, 12 or 14 */
    u32 grid_first; /* the job's first CUDA block */
    u32 grid_count; /* the job's CUDA blocks */
    u32 pad[3];
} aek_job;

#define AEK_KEY_WORDS 60 /* 15 round keys of 4 words */
#define AEK_TABLE_WORDS (256 * 32)

AEK_CONSTANT u8 AEK_SBOX[256] = {
    0x63, 0x7c, 0x77, 0x7b, 0xf2, 0x6b, 0x6f, 0xc5, 0x30, 0x01, 0x67, 0x2b, 0xfe, 0xd7, 0xab, 0x76,
    0xca, 0x82, 0xc9, 0x7d, 0xfa, 0x59, 0x47, 0xf0, 0xad, 0xd4, 0xa2, 0xaf, 0x9c, 0xa4, 0x72, 0xc0,
    0xb7, 0xfd, 0x93, 0x26, 0x36, 0x3f, 0xf7, 0xcc, 0x34, 0xa5, 0xe5, 0xf1, 0x71, 0xd8, 0x31, 0x15,
    0x04, 0xc7, 0x23, 0xc3, 0x18, 0x96, 0x05, 0x9a, 0x07, 0x12, 0x80, 0xe2, 0xeb, 0x27, 0xb2, 0x75,
    0x09, 0x83, 0x2c, 0x1a, 0x1b, 0x6e, 0x5a, 0xa0, 0x52, 0x3b, 0xd6, 0xb3, 0x29, 0xe3, 0x2f, 0x84,
    0x53, 0xd1, 0x00, 0xed, 0x20, 0xfc, 0xb1, 0x5b, 0x6a, 0xcb, 0xbe, 0x39, 0x4a, 0x4c, 0x58, 0xcf,
    0xd0, 0xef, 0xaa, 0xfb, 0x43, 0x4d, 0x33, 0x85, 0x45, 0xf9, 0x02, 0x7f, 0x50, 0x3c, 0x9f, 0xa8,
    0x51, 0xa3, 0x40, 0x8f, 0x92, 0x9d, 0x38, 0xf5, 0xbc, 0xb6, 0xda, 0x21, 0x10, 0xff, 0xf3, 0xd2,
    0xcd, 0x0c, 0x13, 0xec, 0x5f, 0x97, 0x44, 0x17, 0xc4, 0xa7, 0x7e, 0x3d, 0x64, 0x5d, 0x19, 0x73,
    0x60, 0x81, 0x4f, 0xdc, 0x22, 0x2a, 0x90, 0x88, 0x46, 0xee, 0xb8, 0x14, 0xde, 0x5e, 0x0b, 0xdb,
    0xe0, 0x32, 0x3a, 0x0a, 0x49, 0x06, 0x24, 0x5c, 0xc2, 0xd3, 0xac, 0x62, 0x91, 0x95, 0xe4, 0x79,
    0xe7, 0xc8, 0x37, 0x6d, 0x8d, 0xd5, 0x4e, 0xa9, 0x6c, 0x56, 0xf4, 0xea, 0x65, 0x7a, 0xae, 0x08,
    0xba, 0x78, 0x25, 0x2e, 0x1c, 0xa6, 0xb4, 0xc6, 0xe8, 0xdd, 0x74, 0x1f, 0x4b, 0xbd, 0x8b, 0x8a,
    0x70, 0x3e, 0xb5, 0x66, 0x48, 0x03, 0xf6, 0x0e, 0x61, 0x35, 0x57, 0xb9, 0x86, 0xc1, 0x1d, 0x9e,
    0xe1, 0xf8, 0x98, 0x11, 0x69, 0xd9, 0x8e, 0x94, 0x9b, 0x1e, 0x87, 0xe9, 0xce, 0x55, 0x28, 0xdf,
    0x8c, 0xa1, 0x89, 0x0d, 0xbf, 0xe6, 0x42, 0x68, 0x41, 0x99, 0x2d, 0x0f, 0xb0, 0x54, 0xbb, 0x16
};

AEK_DEV u32 aek_xtime4(u32 t)
{
    return ((t & 0x7f7f7f7fu) << 1) ^ (((t >> 7) & 0x01010101u) * 0x1bu);
}

/* Te0[x] = (2·S[x], S[x], S[x], 3·S[x]), byte 0 lowest. */
AEK_DEV u32 aek_te0(u32 x)
{
    u32 s = AEK_SBOX[x];
    u32 s2 = aek_xtime4(s);
    return s2 | (s << 8) | (s << 16) | ((s2 ^ s) << 24);
}

/* Entries [256·32 words], each repeated 32 times: entry x, copy l at
 * index 32x + l. Threads tid, tid + n, ... of one block share the work. */
AEK_DEV void aek_build_table(u32 *table, u32 tid, u32 n)
{
    for (u32 i = tid; i < AEK_TABLE_WORDS; i += n) {
        table[i] = aek_te0(i >> 5);
    }
}

#define AEK_T(x) (table[((x) << 5) | lane])

/* S[a.b0] | S[b.b1] << 8 | S[c.b2] << 16 | S[d.b3] << 24: byte 1 of four
 * Te0 entries, gathered by three byte permutes. */
AEK_DEV u32 aek_sub_column(const u32 *table, u32 lane, u32 a, u32 b, u32 c, u32 d)
{
    u32 lo = AEK_PERM(AEK_T(a & 0xff), AEK_T((b >> 8) & 0xff), 0x0051);
    u32 hi = AEK_PERM(AEK_T((c >> 16) & 0xff), AEK_T(d >> 24), 0x0051);
    return AEK_PERM(lo, hi, 0x5410);
}

/* The last round (no MixColumns), shared by both variants. */
AEK_DEV void aek_last_round(const u32 *table, u32 lane, const u32 *rk, u32 s[4])
{
    u32 t0 = aek_sub_column(table, lane, s[0], s[1], s[2], s[3]) ^ rk[0];
    u32 t1 = aek_sub_column(table, lane, s[1], s[2], s[3], s[0]) ^ rk[1];
    u32 t2 = aek_sub_column(table, lane, s[2], s[3], s[0], s[1]) ^ rk[2];
    u32 t3 = aek_sub_column(table, lane, s[3], s[0], s[1], s[2]) ^ rk[3];
    s[0] = t0; s[1] = t1; s[2] = t2; s[3] = t3;
}

AEK_DEV u32 aek_tt_column(const u32 *table, u32 lane, u32 a, u32 b, u32 c, u32 d)
{
    return AEK_T(a & 0xff) ^ AEK_ROTL(AEK_T((b >> 8) & 0xff), 8)
        ^ AEK_ROTL(AEK_T((c >> 16) & 0xff), 16) ^ AEK_ROTL(AEK_T(d >> 24), 24);
}

/* `ttable`: encrypts s in place. */
AEK_DEV void aek_encrypt_ttable(const u32 *table, u32 lane, const u32 *rk, u32 rounds, u32 s[4])
{
    u32 s0 = s[0] ^ rk[0], s1 = s[1] ^ rk[1], s2 = s[2] ^ rk[2], s3 = s[3] ^ rk[3];
    for (u32 r = 1; r < rounds; r++) {
        const u32 *k = rk + 4 * r;
        u32 t0 = aek_tt_column(table, lane, s0, s1, s2, s3) ^ k[0];
        u32 t1 = aek_tt_column(table, lane, s1, s2, s3, s0) ^ k[1];
        u32 t2 = aek_tt_column(table, lane, s2, s3, s0, s1) ^ k[2];
        u32 t3 = aek_tt_column(table, lane, s3, s0, s1, s2) ^ k[3];
        s0 = t0; s1 = t1; s2 = t2; s3 = t3;
    }
    s[0] = s0; s[1] = s1; s[2] = s2; s[3] = s3;
    aek_last_round(table, lane, rk + 4 * rounds, s);
}

/* MixColumns of one packed column. */
AEK_DEV u32 aek_mix_column(u32 a)
{
    u32 r8 = AEK_ROTL(a, 24);
    return aek_xtime4(a ^ r8) ^ r8 ^ AEK_ROTL(a, 16) ^ AEK_ROTL(a, 8);
}

/* `byteperm`: encrypts s in place. */
AEK_DEV void aek_encrypt_byteperm(const u32 *table, u32 lane, const u32 *rk, u32 rounds, u32 s[4])
{
    u32 s0 = s[0] ^ rk[0], s1 = s[1] ^ rk[1], s2 = s[2] ^ rk[2], s3 = s[3] ^ rk[3];
    for (u32 r = 1; r < rounds; r++) {
        const u32 *k = rk + 4 * r;
        u32 t0 = aek_mix_column(aek_sub_column(table, lane, s0, s1, s2, s3)) ^ k[0];
        u32 t1 = aek_mix_column(aek_sub_column(table, lane, s1, s2, s3, s0)) ^ k[1];
        u32 t2 = aek_mix_column(aek_sub_column(table, lane, s2, s3, s0, s1)) ^ k[2];
        u32 t3 = aek_mix_column(aek_sub_column(table, lane, s3, s0, s1, s2)) ^ k[3];
        s0 = t0; s1 = t1; s2 = t2; s3 = t3;
    }
    s[0] = s0; s[1] = s1; s[2] = s2; s[3] = s3;
    aek_last_round(table, lane, rk + 4 * rounds, s);
}

AEK_DEV u32 aek_bswap(u32 x)
{
    return AEK_PERM(x, 0, 0x0123);
}

/* The work of thread `tid` of `nthreads` in CUDA block `block` (counted
 * within the job): every chunk block, block + grid_count, ... of the job. */
AEK_DEV void aek_thread(const aek_job *job, const u32 *rk, const u32 *table, u32 block,
                        u32 tid, u32 nthreads, u32 bpt, int byteperm, aek_out *out)
{
    u32 lane = tid & 31;
    u64 chunk = (u64)nthreads * bpt;
    u64 b = job->per_packet;
    /* Stepping by nthreads blocks: nthreads = q·b + r. */
    u64 step_q = b ? nthreads / b : 0;
    u64 step_r = b ? nthreads % b : 0;
    for (u64 c = block; c * chunk < job->count; c += job->grid_count) {
        u64 off = c * chunk + tid;
        u64 index = job->first + off;
        u64 packet = b ? index / b : 0;
        u64 j = b ? index - packet * b : 0;
        for (u32 k = 0; k < bpt; k++) {
            if (off < job->count) {
                u32 s[4];
                s[0] = job->salt;
                if (b) {
                    s[1] = aek_bswap((u32)(packet >> 32));
                    s[2] = aek_bswap((u32)packet);
                    s[3] = aek_bswap((u32)j + 1);
                } else {
                    s[1] = 0;
                    s[2] = aek_bswap((u32)(index >> 32));
                    s[3] = aek_bswap((u32)index);
                }
                if (byteperm) {
                    aek_encrypt_byteperm(table, lane, rk, job->rounds, s);
                } else {
                    aek_encrypt_ttable(table, lane, rk, job->rounds, s);
                }
                AEK_STORE(out + job->out + off, s[0], s[1], s[2], s[3]);
            }
            off += nthreads;
            index += nthreads;
            if (b) {
                j += step_r;
                packet += step_q;
                if (j >= b) {
                    j -= b;
                    packet += 1;
                }
            }
        }
    }
}

#ifdef AEK_CUDA
/* The job of CUDA block `blk`: the last whose grid_first <= blk. */
__device__ u32 aek_find_job(const aek_job *jobs, u32 njobs, u32 blk)
{
    u32 lo = 0, hi = njobs;
    while (hi - lo > 1) {
        u32 mid = (lo + hi) / 2;
        if (jobs[mid].grid_first <= blk) lo = mid; else hi = mid;
    }
    return lo;
}

__device__ __forceinline__ void aek_kernel(const aek_job *jobs, u32 njobs, const u32 *keys,
                                           aek_out *out, u32 bpt, int byteperm)
{
    __shared__ u32 table[AEK_TABLE_WORDS];
    __shared__ u32 rk[AEK_KEY_WORDS];
    __shared__ aek_job job;
    if (threadIdx.x == 0) {
        job = jobs[aek_find_job(jobs, njobs, blockIdx.x)];
    }
    aek_build_table(table, threadIdx.x, blockDim.x);
    __syncthreads();
    for (u32 i = threadIdx.x; i < 4 * (job.rounds + 1); i += blockDim.x) {
        rk[i] = keys[AEK_KEY_WORDS * job.key + i];
    }
    __syncthreads();
    aek_thread(&job, rk, table, blockIdx.x - job.grid_first, threadIdx.x, blockDim.x, bpt,
               byteperm, out);
}

extern "C" __global__ void __launch_bounds__(256)
aek_ctr_ttable(const aek_job *jobs, u32 njobs, const u32 *keys, aek_out *out, u32 bpt)
{
    aek_kernel(jobs, njobs, keys, out, bpt, 0);
}

extern "C" __global__ void __launch_bounds__(256)
aek_ctr_byteperm(const aek_job *jobs, u32 njobs, const u32 *keys, aek_out *out, u32 bpt)
{
    aek_kernel(jobs, njobs, keys, out, bpt, 1);
}
#else
/* The host build: the same per-thread code, run for every thread of every
 * CUDA block of one job in turn (for the tests; slow, exact). */
void aek_host_ctr(const aek_job *job, const u32 *keys, aek_out *out, u32 nthreads, u32 bpt,
                  int byteperm)
{
    u32 table[AEK_TABLE_WORDS];
    aek_build_table(table, 0, 1);
    const u32 *rk = keys + AEK_KEY_WORDS * job->key;
    for (u32 block = 0; block < job->grid_count; block++) {
        for (u32 tid = 0; tid < nthreads; tid++) {
            aek_thread(job, rk, table, block, tid, nthreads, bpt, byteperm, out);
        }
    }
}

/* __byte_perm as emulated here, for a test of the emulation itself. */
u32 aek_host_perm(u32 x, u32 y, u32 s)
{
    return aek_perm(x, y, s);
}
#endif
