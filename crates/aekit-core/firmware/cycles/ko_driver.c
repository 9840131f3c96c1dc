/* Driver for validating the Cortex-M4 timing model (m4model.py) against
 * published cycle counts: Schwabe and Stoffelen, "All the AES You Need on
 * Cortex-M3 and M4" (SAC 2016), whose README reports DWT cycle counts on
 * an STM32F407 for 4096-byte messages. Their assembly is linked in from a
 * checkout (validate.sh); this file holds the calls between two marker
 * functions that delimit each measured region in the instruction trace. */
#include <stdint.h>

typedef struct param {
    uint32_t ctr;
    uint8_t nonce[12];
    uint8_t rk[2 * 11 * 16];
} param;

void AES_128_keyschedule(const uint8_t *, uint8_t *);
void AES_128_encrypt_ctr(param const *, const uint8_t *, uint8_t *, uint32_t);

#define LEN 4096
static uint8_t in[LEN], out[LEN];
static param p;

__attribute__((noinline)) void mark_begin(uint32_t id) { __asm volatile("" ::"r"(id)); }
__attribute__((noinline)) void mark_end(uint32_t id) { __asm volatile("" ::"r"(id)); }

static void sys_exit(uint32_t reason)
{
    register uint32_t r0 __asm("r0") = 0x18;
    register uint32_t r1 __asm("r1") = reason;
    __asm volatile("bkpt 0xab" : "+r"(r0) : "r"(r1) : "memory");
}

void reset(void)
{
    uint8_t key[16];
    for (int i = 0; i < 16; i++) key[i] = (uint8_t)(i * 37 + 1);
    for (int i = 0; i < 12; i++) p.nonce[i] = (uint8_t)(i * 11 + 5);
    for (int i = 0; i < LEN; i++) in[i] = (uint8_t)i;
    p.ctr = 0;
    for (int i = 0; i < 16; i++) p.rk[i] = key[i];
    mark_begin(1);
    AES_128_keyschedule(key, p.rk);
    mark_end(1);
    mark_begin(2);
    AES_128_encrypt_ctr(&p, in, out, LEN);
    mark_end(2);
    sys_exit(0x20026);
    for (;;) {}
}

extern uint32_t _stack_top;
__attribute__((section(".vector_table.reset"), used))
const void *vectors[2] = {&_stack_top, (void *)reset};
