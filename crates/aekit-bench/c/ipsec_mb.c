/*
 * The few calls of Intel's ipsec-mb that the benchmarks make, as plain C
 * functions Rust can declare: ipsec-mb's AES-GCM API is a table of function
 * pointers inside its manager (IMB_MGR), reached through macros, which a
 * foreign-function declaration cannot name. Compiled by build.rs only when
 * the library's header is found; the benchmarks then link libIPSec_MB.
 *
 * Nothing here computes: each function calls ipsec-mb once.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <intel-ipsec-mb.h>

/* The CPU features each forced path needs, as ipsec-mb names them: its
 * init_mb_mgr_avx512 and _avx2 do not check them (on a CPU without
 * AVX-512 the first jumps through a NULL pointer), so this file does. */
static const uint64_t needs[] = {
        0,
        IMB_CPUFLAGS_AVX512,
        IMB_CPUFLAGS_AVX2,
        IMB_CPUFLAGS_SSE,
};

/* The manager for `arch`: 0 the best this CPU runs (init_mb_mgr_auto),
 * 1 AVX-512, 2 AVX2, 3 SSE. NULL where the CPU lacks what the path needs
 * (the features alloc_mb_mgr detected) or the library refuses. */
IMB_MGR *aekit_imb_new(int arch)
{
        if (arch < 0 || arch > 3)
                return NULL;
        IMB_MGR *mgr = alloc_mb_mgr(0);
        if (mgr == NULL)
                return NULL;
        if ((mgr->features & needs[arch]) != needs[arch]) {
                free_mb_mgr(mgr);
                return NULL;
        }
        switch (arch) {
        case 0:
                init_mb_mgr_auto(mgr, NULL);
                break;
        case 1:
                init_mb_mgr_avx512(mgr);
                break;
        case 2:
                init_mb_mgr_avx2(mgr);
                break;
        case 3:
                init_mb_mgr_sse(mgr);
                break;
        }
        if (imb_get_errno(mgr) != 0) {
                free_mb_mgr(mgr);
                return NULL;
        }
        return mgr;
}

void aekit_imb_free(IMB_MGR *mgr)
{
        free_mb_mgr(mgr);
}

const char *aekit_imb_version(void)
{
        return imb_get_version_str();
}

/* Which code the manager runs: IMB_ARCH_* of its `used_arch`. */
int aekit_imb_arch(const IMB_MGR *mgr)
{
        return (int)mgr->used_arch;
}

/* The expanded key for AES-GCM with a 16- or 32-byte key, in memory
 * aligned as the library wants it (64 bytes); NULL otherwise. */
struct gcm_key_data *aekit_imb_gcm_key(IMB_MGR *mgr, const uint8_t *key, size_t len)
{
        struct gcm_key_data *k = NULL;
        if ((len != 16 && len != 32) ||
            posix_memalign((void **)&k, 64, sizeof(*k)) != 0)
                return NULL;
        if (len == 16)
                IMB_AES128_GCM_PRE(mgr, key, k);
        else
                IMB_AES256_GCM_PRE(mgr, key, k);
        return k;
}

void aekit_imb_gcm_key_free(struct gcm_key_data *k)
{
        if (k != NULL) {
                memset(k, 0, sizeof(*k));
                free(k);
        }
}

/* One message, out of place or in place (dst == src), 12-byte IV, tag of
 * `tag_len` bytes written to `tag`. */
void aekit_imb_gcm_enc(IMB_MGR *mgr, const struct gcm_key_data *k, size_t key_len,
                       uint8_t *dst, const uint8_t *src, uint64_t len,
                       const uint8_t *iv, const uint8_t *aad, uint64_t aad_len,
                       uint8_t *tag, uint64_t tag_len)
{
        struct gcm_context_data ctx;
        if (key_len == 16)
                IMB_AES128_GCM_ENC(mgr, k, &ctx, dst, src, len, iv, aad, aad_len,
                                   tag, tag_len);
        else
                IMB_AES256_GCM_ENC(mgr, k, &ctx, dst, src, len, iv, aad, aad_len,
                                   tag, tag_len);
}

/* Decrypts and compares the computed tag with `tag` without a branch on
 * its bytes, as a caller of the library must: 1 when they match. */
int aekit_imb_gcm_dec(IMB_MGR *mgr, const struct gcm_key_data *k, size_t key_len,
                      uint8_t *dst, const uint8_t *src, uint64_t len,
                      const uint8_t *iv, const uint8_t *aad, uint64_t aad_len,
                      const uint8_t *tag, uint64_t tag_len)
{
        struct gcm_context_data ctx;
        uint8_t computed[16];
        uint8_t diff = 0;
        if (tag_len > 16)
                return 0;
        if (key_len == 16)
                IMB_AES128_GCM_DEC(mgr, k, &ctx, dst, src, len, iv, aad, aad_len,
                                   computed, tag_len);
        else
                IMB_AES256_GCM_DEC(mgr, k, &ctx, dst, src, len, iv, aad, aad_len,
                                   computed, tag_len);
        for (uint64_t i = 0; i < tag_len; i++)
                diff |= computed[i] ^ tag[i];
        return diff == 0;
}

/* Encrypts `n` messages in place through the multi-buffer job API, as a
 * data plane drives it: each message a job (GCM cipher, GMAC hash, cipher
 * then hash), submitted in turn, the completed ones taken as they come
 * back, the rest flushed at the end. The messages lie one after another
 * from `buf`, message i `lens[i]` bytes under the 12-byte IV `ivs[i]`, no
 * AAD, its 16-byte tag into `tags[i]`. Returns how many jobs completed. */
size_t aekit_imb_gcm_jobs(IMB_MGR *mgr, const struct gcm_key_data *k, size_t key_len,
                          uint8_t *buf, const uint64_t *lens,
                          const uint8_t (*ivs)[12], uint8_t (*tags)[16], size_t n)
{
        size_t done = 0;
        IMB_JOB *job;
        for (size_t i = 0; i < n; buf += lens[i], i++) {
                job = IMB_GET_NEXT_JOB(mgr);
                job->cipher_mode = IMB_CIPHER_GCM;
                job->hash_alg = IMB_AUTH_AES_GMAC;
                job->chain_order = IMB_ORDER_CIPHER_HASH;
                job->cipher_direction = IMB_DIR_ENCRYPT;
                job->enc_keys = k;
                job->dec_keys = k;
                job->key_len_in_bytes = key_len;
                job->src = buf;
                job->dst = buf;
                job->cipher_start_src_offset_in_bytes = 0;
                job->msg_len_to_cipher_in_bytes = lens[i];
                job->hash_start_src_offset_in_bytes = 0;
                job->msg_len_to_hash_in_bytes = lens[i];
                job->iv = ivs[i];
                job->iv_len_in_bytes = 12;
                job->u.GCM.aad = NULL;
                job->u.GCM.aad_len_in_bytes = 0;
                job->auth_tag_output = tags[i];
                job->auth_tag_output_len_in_bytes = 16;
                for (job = IMB_SUBMIT_JOB(mgr); job != NULL;
                     job = IMB_GET_COMPLETED_JOB(mgr))
                        done += job->status == IMB_STATUS_COMPLETED;
        }
        while ((job = IMB_FLUSH_JOB(mgr)) != NULL)
                done += job->status == IMB_STATUS_COMPLETED;
        return done;
}
