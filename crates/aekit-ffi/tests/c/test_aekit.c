/*
 * The C interface of aekit, exercised from C: known answers (GCM spec test
 * case 4, an AETHER known answer from vectors/aether-kat.json), round trips
 * in place and out of place, streaming against one-shot, tamper rejection
 * with the output zeroed, and every status code reached at least once.
 * Run under Valgrind memcheck by .ci/run (no leaks, no invalid accesses).
 *
 * Build:  cc -std=c11 -Wall -Wextra -Werror test_aekit.c \
 *             $(pkg-config --cflags --libs aekit) -o test_aekit
 * Prints "aekit-ffi: N passed, M failed" and exits non-zero on a failure.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "aekit.h"

static int passed, failed;
static int reached[AEKIT_PANIC + 1];

#define CHECK(cond)                                                          \
    do {                                                                     \
        if (cond) {                                                          \
            passed++;                                                        \
        } else {                                                             \
            failed++;                                                        \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, \
                    #cond);                                                  \
        }                                                                    \
    } while (0)

/* Checks a call's status and records that the code was reached. */
#define EXPECT(call, status)                                                 \
    do {                                                                     \
        int got_ = (call);                                                   \
        if (got_ >= 0 && got_ <= AEKIT_PANIC) reached[got_] = 1;             \
        if (got_ == (status)) {                                              \
            passed++;                                                        \
        } else {                                                             \
            failed++;                                                        \
            fprintf(stderr, "%s:%d: %s returned %s (%s), expected %s\n",     \
                    __FILE__, __LINE__, #call, aekit_status_name(got_),      \
                    aekit_status_message(got_), #status);                    \
        }                                                                    \
    } while (0)

static size_t unhex(const char *hex, uint8_t *out) {
    size_t n = strlen(hex) / 2;
    for (size_t i = 0; i < n; i++) {
        unsigned byte;
        sscanf(hex + 2 * i, "%2x", &byte);
        out[i] = (uint8_t)byte;
    }
    return n;
}

static int all_zero(const uint8_t *p, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (p[i]) return 0;
    return 1;
}

/* McGrew & Viega, The Galois/Counter Mode of Operation, test case 4. */
static void test_gcm_known_answer(void) {
    uint8_t key[16], iv[12], aad[20], pt[60], ct[60], tag[16], out[76], back[60];
    unhex("feffe9928665731c6d6a8f9467308308", key);
    unhex("cafebabefacedbaddecaf888", iv);
    unhex("feedfacedeadbeeffeedfacedeadbeefabaddad2", aad);
    unhex("d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a72"
          "1c3c0c95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b39", pt);
    unhex("42831ec2217774244b7221b784d0d49ce3aa212f2c02a4e035c17e2329aca12e"
          "21d514b25466931c7d8f6a5aac84aa051ba30b396a0aac973d58e091", ct);
    unhex("5bc94fbc3221a5db94fae95ae7121a47", tag);

    aekit_aes_gcm *gcm = NULL;
    EXPECT(aekit_aes_gcm_new(key, sizeof key, &gcm), AEKIT_OK);
    size_t n = 0;
    EXPECT(aekit_aes_gcm_encrypt(gcm, iv, 12, aad, 20, pt, 60, out, sizeof out, &n), AEKIT_OK);
    CHECK(n == 76 && memcmp(out, ct, 60) == 0 && memcmp(out + 60, tag, 16) == 0);
    EXPECT(aekit_aes_gcm_decrypt(gcm, iv, 12, aad, 20, out, 76, back, sizeof back, &n), AEKIT_OK);
    CHECK(n == 60 && memcmp(back, pt, 60) == 0);
    aekit_aes_gcm_free(gcm);
}

/* Round trips over key sizes, nonce lengths and message lengths, out of
 * place and in place, and tampering of every part. */
static void test_gcm_round_trips_and_tampering(void) {
    static const size_t lengths[] = {0, 1, 15, 16, 17, 255, 4096, 70000, 1 << 20};
    static const size_t nonce_lens[] = {12, 1, 8, 60};
    uint8_t key[32], nonce[60], aad[33];
    for (size_t i = 0; i < sizeof key; i++) key[i] = (uint8_t)(i * 7 + 1);
    for (size_t i = 0; i < sizeof nonce; i++) nonce[i] = (uint8_t)(i * 3);
    for (size_t i = 0; i < sizeof aad; i++) aad[i] = (uint8_t)(0xa0 + i);

    for (size_t k = 16; k <= 32; k += 8) {
        aekit_aes_gcm *gcm = NULL;
        EXPECT(aekit_aes_gcm_new(key, k, &gcm), AEKIT_OK);
        for (size_t li = 0; li < sizeof lengths / sizeof *lengths; li++) {
            size_t len = lengths[li], nlen = nonce_lens[li % 4], n = 0;
            uint8_t *pt = malloc(len + 1), *sealed = malloc(len + 16), *back = malloc(len + 16);
            for (size_t i = 0; i < len; i++) pt[i] = (uint8_t)(i ^ (i >> 8));
            EXPECT(aekit_aes_gcm_encrypt(gcm, nonce, nlen, aad, sizeof aad, pt, len, sealed, len + 16, &n), AEKIT_OK);
            CHECK(n == len + 16);
            /* In place gives the same bytes. */
            memcpy(back, pt, len);
            EXPECT(aekit_aes_gcm_encrypt(gcm, nonce, nlen, aad, sizeof aad, back, len, back, len + 16, &n), AEKIT_OK);
            CHECK(memcmp(back, sealed, len + 16) == 0);
            EXPECT(aekit_aes_gcm_decrypt(gcm, nonce, nlen, aad, sizeof aad, back, len + 16, back, len, &n), AEKIT_OK);
            CHECK(n == len && memcmp(back, pt, len) == 0);

            /* A flipped bit in the ciphertext, the tag, the nonce or the
             * associated data: rejected, and the output zeroed. */
            size_t where[] = {0, len / 2, len + 15};
            for (size_t w = 0; w < 3; w++) {
                if (where[w] >= len + 16) continue;
                sealed[where[w]] ^= 0x04;
                memset(back, 0x55, len + 16);
                EXPECT(aekit_aes_gcm_decrypt(gcm, nonce, nlen, aad, sizeof aad, sealed, len + 16, back, len, &n),
                       AEKIT_AUTHENTICATION_FAILED);
                CHECK(n == 0 && all_zero(back, len));
                sealed[where[w]] ^= 0x04;
            }
            nonce[0] ^= 1;
            EXPECT(aekit_aes_gcm_decrypt(gcm, nonce, nlen, aad, sizeof aad, sealed, len + 16, back, len, &n),
                   AEKIT_AUTHENTICATION_FAILED);
            nonce[0] ^= 1;
            EXPECT(aekit_aes_gcm_decrypt(gcm, nonce, nlen, aad, sizeof aad - 1, sealed, len + 16, back, len, &n),
                   AEKIT_AUTHENTICATION_FAILED);
            EXPECT(aekit_aes_gcm_decrypt(gcm, nonce, nlen, aad, sizeof aad, sealed, len + 16, back, len, &n),
                   AEKIT_OK);
            CHECK(memcmp(back, pt, len) == 0);
            free(pt);
            free(sealed);
            free(back);
        }
        aekit_aes_gcm_free(gcm);
    }
}

/* Streaming gives the one-shot bytes for an uneven split, survives the key
 * handle being freed first, and rejects a wrong tag. */
static void test_gcm_streaming(void) {
    uint8_t key[16] = {1, 2, 3}, nonce[12] = {9}, aad[40], pt[5000], sealed[5016], ct[5000], tag[16], back[5000];
    size_t n = 0;
    for (size_t i = 0; i < sizeof aad; i++) aad[i] = (uint8_t)i;
    for (size_t i = 0; i < sizeof pt; i++) pt[i] = (uint8_t)(i * 13);
    aekit_aes_gcm *gcm = NULL;
    EXPECT(aekit_aes_gcm_new(key, 16, &gcm), AEKIT_OK);
    EXPECT(aekit_aes_gcm_encrypt(gcm, nonce, 12, aad, 40, pt, 5000, sealed, sizeof sealed, &n), AEKIT_OK);

    aekit_aes_gcm_encryptor *enc = NULL;
    aekit_aes_gcm_decryptor *dec = NULL, *bad = NULL;
    EXPECT(aekit_aes_gcm_encryptor_new(gcm, nonce, 12, &enc), AEKIT_OK);
    EXPECT(aekit_aes_gcm_decryptor_new(gcm, nonce, 12, &dec), AEKIT_OK);
    EXPECT(aekit_aes_gcm_decryptor_new(gcm, nonce, 12, &bad), AEKIT_OK);
    aekit_aes_gcm_free(gcm); /* the streams keep the key alive */

    EXPECT(aekit_aes_gcm_encryptor_aad(enc, aad, 7), AEKIT_OK);
    EXPECT(aekit_aes_gcm_encryptor_aad(enc, aad + 7, 33), AEKIT_OK);
    size_t cuts[] = {0, 1, 17, 100, 4096, 5000};
    for (size_t c = 0; c + 1 < 6; c++)
        EXPECT(aekit_aes_gcm_encryptor_update(enc, pt + cuts[c], cuts[c + 1] - cuts[c], ct + cuts[c]), AEKIT_OK);
    EXPECT(aekit_aes_gcm_encryptor_finish(enc, tag, 16), AEKIT_OK);
    CHECK(memcmp(ct, sealed, 5000) == 0 && memcmp(tag, sealed + 5000, 16) == 0);

    EXPECT(aekit_aes_gcm_decryptor_aad(dec, aad, 40), AEKIT_OK);
    memcpy(back, ct, 5000);
    EXPECT(aekit_aes_gcm_decryptor_update(dec, back, 3000, back), AEKIT_OK); /* in place */
    EXPECT(aekit_aes_gcm_decryptor_update(dec, ct + 3000, 2000, back + 3000), AEKIT_OK);
    EXPECT(aekit_aes_gcm_decryptor_finish(dec, tag, 16), AEKIT_OK);
    CHECK(memcmp(back, pt, 5000) == 0);

    EXPECT(aekit_aes_gcm_decryptor_aad(bad, aad, 40), AEKIT_OK);
    EXPECT(aekit_aes_gcm_decryptor_update(bad, ct, 5000, back), AEKIT_OK);
    tag[15] ^= 0x80;
    EXPECT(aekit_aes_gcm_decryptor_finish(bad, tag, 16), AEKIT_AUTHENTICATION_FAILED);

    aekit_aes_gcm_encryptor_free(enc);
    aekit_aes_gcm_decryptor_free(dec);
    aekit_aes_gcm_decryptor_free(bad);
}

/* vectors/aether-kat.json, case 3. */
static void test_aether(void) {
    uint8_t key[32], nonce[16], ad[48], msg[16], ct[16], tag[16], out[32], back[16];
    unhex("f2ef5e35840b1f36e974b4fe9191576bfd76f2ec5cfa3810e93ef02de3574200", key);
    unhex("06355f223df452fd33d6202bba3e86e8", nonce);
    unhex("b4ba3b3fcc8976b506a099d883b6df335c98a7abfdfa4b6c5acb344902f0df17"
          "6c7ef016751e916803072d5b1282a301", ad);
    unhex("10abb8c4d2ae2e35ca9958a2145f98d8", msg);
    unhex("eb90a8ec9076a91c9c8ab6afbd4e76d7", ct);
    unhex("3000227b0476018d83d9d9946f77dcf4", tag);
    aekit_aether *x = NULL;
    size_t n = 0;
    EXPECT(aekit_aether_new(key, 32, &x), AEKIT_OK);
    EXPECT(aekit_aether_encrypt(x, nonce, 16, ad, 48, msg, 16, out, sizeof out, &n), AEKIT_OK);
    CHECK(n == 32 && memcmp(out, ct, 16) == 0 && memcmp(out + 16, tag, 16) == 0);
    EXPECT(aekit_aether_decrypt(x, nonce, 16, ad, 48, out, 32, back, sizeof back, &n), AEKIT_OK);
    CHECK(n == 16 && memcmp(back, msg, 16) == 0);
    out[3] ^= 1;
    EXPECT(aekit_aether_decrypt(x, nonce, 16, ad, 48, out, 32, back, sizeof back, &n),
           AEKIT_AUTHENTICATION_FAILED);
    CHECK(all_zero(back, 16));
    /* Refused out of place: no copy of the plaintext is left in out. */
    memset(out, 0xaa, sizeof out);
    EXPECT(aekit_aether_encrypt(x, nonce, 12, ad, 48, msg, 16, out, sizeof out, &n), AEKIT_NONCE_LENGTH);
    CHECK(memcmp(out, msg, 16) != 0);
    /* Refused in place: the plaintext stays. */
    memcpy(out, msg, 16);
    EXPECT(aekit_aether_encrypt(x, nonce, 12, ad, 48, out, 16, out, sizeof out, &n), AEKIT_NONCE_LENGTH);
    CHECK(memcmp(out, msg, 16) == 0);
    aekit_aether_free(x);
    EXPECT(aekit_aether_new(key, 16, &x), AEKIT_KEY_LENGTH);
    CHECK(x == NULL);
}

/* Every other status code, each from the mistake that causes it. */
static void test_errors(void) {
    uint8_t key[16] = {0}, nonce[12] = {0}, buf[64] = {0}, tag[16];
    size_t n = 99;
    aekit_aes_gcm *gcm = NULL;

    EXPECT(aekit_aes_gcm_new(key, 15, &gcm), AEKIT_KEY_LENGTH);
    CHECK(gcm == NULL);
    EXPECT(aekit_aes_gcm_new(NULL, 16, &gcm), AEKIT_INVALID_ARGUMENT);
    EXPECT(aekit_aes_gcm_new(key, 16, NULL), AEKIT_INVALID_ARGUMENT);
    EXPECT(aekit_aes_gcm_new(key, 16, &gcm), AEKIT_OK);

    EXPECT(aekit_aes_gcm_encrypt(NULL, nonce, 12, NULL, 0, buf, 4, buf + 32, 20, &n), AEKIT_INVALID_ARGUMENT);
    EXPECT(aekit_aes_gcm_encrypt(gcm, nonce, 12, NULL, 0, buf, 4, buf + 32, 20, NULL), AEKIT_INVALID_ARGUMENT);
    EXPECT(aekit_aes_gcm_encrypt(gcm, nonce, 12, NULL, 5, buf, 4, buf + 32, 20, &n), AEKIT_INVALID_ARGUMENT);
    /* Input and output overlapping, not exactly: refused. */
    EXPECT(aekit_aes_gcm_encrypt(gcm, nonce, 12, NULL, 0, buf, 20, buf + 4, 36, &n), AEKIT_INVALID_ARGUMENT);
    /* A refused encryption leaves no copy of the plaintext in the output. */
    uint8_t secret[4] = {0xaa, 0xbb, 0xcc, 0xdd}, sealed[20];
    memset(sealed, 0x11, sizeof sealed);
    EXPECT(aekit_aes_gcm_encrypt(gcm, nonce, 0, NULL, 0, secret, 4, sealed, 20, &n), AEKIT_NONCE_LENGTH);
    CHECK(memcmp(sealed, secret, 4) != 0);
    /* In place, a refused call leaves the caller's plaintext as it was:
     * it may be the only copy. */
    uint8_t only_copy[20] = {0xaa, 0xbb, 0xcc, 0xdd};
    EXPECT(aekit_aes_gcm_encrypt(gcm, nonce, 0, NULL, 0, only_copy, 4, only_copy, 20, &n), AEKIT_NONCE_LENGTH);
    CHECK(memcmp(only_copy, secret, 4) == 0 && n == 0);
    EXPECT(aekit_aes_gcm_decrypt(gcm, nonce, 0, NULL, 0, only_copy, 20, only_copy, 20, &n), AEKIT_NONCE_LENGTH);
    CHECK(memcmp(only_copy, secret, 4) == 0 && n == 0);
    EXPECT(aekit_aes_gcm_encrypt(gcm, nonce, 12, NULL, 0, buf, 4, buf + 32, 19, &n), AEKIT_BUFFER_TOO_SMALL);
    CHECK(n == 20);
    /* A message whose length plus the tag does not fit in size_t. */
    EXPECT(aekit_aes_gcm_encrypt(gcm, nonce, 12, NULL, 0, buf, SIZE_MAX - 8, buf + 32, 20, &n), AEKIT_TOO_LONG);
    EXPECT(aekit_aes_gcm_decrypt(gcm, nonce, 12, NULL, 0, buf, 15, buf + 32, 20, &n), AEKIT_AUTHENTICATION_FAILED);

    aekit_aes_gcm_encryptor *enc = NULL;
    EXPECT(aekit_aes_gcm_encryptor_new(gcm, nonce, 0, &enc), AEKIT_NONCE_LENGTH);
    CHECK(enc == NULL);
    EXPECT(aekit_aes_gcm_encryptor_new(gcm, nonce, 12, &enc), AEKIT_OK);
    EXPECT(aekit_aes_gcm_encryptor_update(enc, buf, 10, buf), AEKIT_OK);
    EXPECT(aekit_aes_gcm_encryptor_aad(enc, buf, 3), AEKIT_AAD_AFTER_MESSAGE);
    EXPECT(aekit_aes_gcm_encryptor_finish(enc, tag, 8), AEKIT_TAG_LENGTH);
    EXPECT(aekit_aes_gcm_encryptor_finish(enc, tag, 16), AEKIT_OK);
    EXPECT(aekit_aes_gcm_encryptor_update(enc, buf, 10, buf), AEKIT_FINISHED);
    EXPECT(aekit_aes_gcm_encryptor_finish(enc, tag, 16), AEKIT_FINISHED);
    aekit_aes_gcm_encryptor_free(enc);
    aekit_aes_gcm_encryptor_free(NULL);
    aekit_aes_gcm_free(gcm);
    aekit_aes_gcm_free(NULL);

    /* A panic inside aekit comes back as a status, never as an unwind. */
    EXPECT(aekit_check_panic_boundary(), AEKIT_PANIC);

}

/* A mistyped AEKIT_KERNEL makes every key fail. aekit reads the variable
 * once per process, at the first key: so this runs first, in a child
 * forked before this process has made any key. */
static void test_unsupported_kernel(void) {
    uint8_t key[16] = {0};
    fflush(NULL);
    pid_t child = fork();
    if (child == 0) {
        setenv("AEKIT_KERNEL", "no-such-kernel", 1);
        aekit_aes_gcm *g = NULL;
        _exit(aekit_aes_gcm_new(key, 16, &g));
    }
    int wstatus = 0;
    CHECK(child > 0 && waitpid(child, &wstatus, 0) == child && WIFEXITED(wstatus));
    EXPECT(WEXITSTATUS(wstatus), AEKIT_UNSUPPORTED);
}

static void test_names(void) {
    for (int code = AEKIT_OK; code <= AEKIT_PANIC; code++) {
        CHECK(strncmp(aekit_status_name(code), "AEKIT_", 6) == 0);
        CHECK(strlen(aekit_status_message(code)) > 0);
    }
    CHECK(strcmp(aekit_status_name(AEKIT_AUTHENTICATION_FAILED), "AEKIT_AUTHENTICATION_FAILED") == 0);
    CHECK(strcmp(aekit_status_name(-1), "AEKIT_UNKNOWN") == 0);
    CHECK(strlen(aekit_version()) > 0);
}

int main(void) {
    test_unsupported_kernel();
    test_names();
    test_gcm_known_answer();
    test_gcm_round_trips_and_tampering();
    test_gcm_streaming();
    test_aether();
    test_errors();
    for (int code = AEKIT_OK; code <= AEKIT_PANIC; code++) {
        if (!reached[code]) {
            failed++;
            fprintf(stderr, "status %s was never reached\n", aekit_status_name(code));
        }
    }
    printf("aekit-ffi: %d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
