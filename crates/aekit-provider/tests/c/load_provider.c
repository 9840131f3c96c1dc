/*
 * Loads the aekit provider the way a C program does (OSSL_PROVIDER_load),
 * fetches AES-256-GCM from it, and checks one encryption and decryption
 * against the GCM specification's test case 14 (256-bit zero key, 96-bit
 * zero IV, one block of zeros).
 *
 *   cc load_provider.c -lcrypto -o load_provider
 *   ./load_provider MODULES_DIR     (the directory holding aekit.so)
 */
#include <stdio.h>
#include <string.h>
#include <openssl/evp.h>
#include <openssl/provider.h>

int main(int argc, char **argv)
{
    static const unsigned char key[32], iv[12], plaintext[16];
    static const unsigned char expected_ct[16] = {
        0xce, 0xa7, 0x40, 0x3d, 0x4d, 0x60, 0x6b, 0x6e,
        0x07, 0x4e, 0xc5, 0xd3, 0xba, 0xf3, 0x9d, 0x18};
    static const unsigned char expected_tag[16] = {
        0xd0, 0xd1, 0xc8, 0xa7, 0x99, 0x99, 0x6b, 0xf0,
        0x26, 0x5b, 0x98, 0xb5, 0xd4, 0x8a, 0xb9, 0x19};
    unsigned char ct[16], tag[16], back[16];
    int len, ok = 0;

    if (argc != 2) {
        fprintf(stderr, "usage: %s MODULES_DIR\n", argv[0]);
        return 2;
    }
    /* Where aekit.so is, unless it is in OpenSSL's own modules directory. */
    OSSL_PROVIDER_set_default_search_path(NULL, argv[1]);
    OSSL_PROVIDER *aekit = OSSL_PROVIDER_load(NULL, "aekit");
    OSSL_PROVIDER *dflt = OSSL_PROVIDER_load(NULL, "default");
    EVP_CIPHER *gcm = EVP_CIPHER_fetch(NULL, "AES-256-GCM", "provider=aekit");
    EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
    if (aekit == NULL || dflt == NULL || gcm == NULL || ctx == NULL) {
        fprintf(stderr, "FAIL loading the provider or fetching AES-256-GCM\n");
        return 1;
    }
    if (EVP_EncryptInit_ex2(ctx, gcm, key, iv, NULL)
        && EVP_EncryptUpdate(ctx, ct, &len, plaintext, sizeof plaintext)
        && EVP_EncryptFinal_ex(ctx, ct + len, &len)
        && EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_GET_TAG, 16, tag)
        && memcmp(ct, expected_ct, 16) == 0 && memcmp(tag, expected_tag, 16) == 0
        && EVP_DecryptInit_ex2(ctx, gcm, key, iv, NULL)
        && EVP_DecryptUpdate(ctx, back, &len, ct, sizeof ct)
        && EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_TAG, 16, tag)
        && EVP_DecryptFinal_ex(ctx, back + len, &len)
        && memcmp(back, plaintext, 16) == 0) {
        /* A wrong tag must fail at final. */
        tag[0] ^= 1;
        ok = EVP_DecryptInit_ex2(ctx, gcm, key, iv, NULL)
            && EVP_DecryptUpdate(ctx, back, &len, ct, sizeof ct)
            && EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_TAG, 16, tag)
            && EVP_DecryptFinal_ex(ctx, back + len, &len) == 0;
    }
    printf("%s AES-256-GCM from provider %s: GCM test case 14\n", ok ? "ok  " : "FAIL",
           OSSL_PROVIDER_get0_name(EVP_CIPHER_get0_provider(gcm)));
    EVP_CIPHER_CTX_free(ctx);
    EVP_CIPHER_free(gcm);
    OSSL_PROVIDER_unload(dflt);
    OSSL_PROVIDER_unload(aekit);
    return ok ? 0 : 1;
}
