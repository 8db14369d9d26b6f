/* tests/baremetal: the start-up code of the bare-metal test program (a vector
 * table, .data and .bss set up, main called) and its only output, through
 * semihosting, so that QEMU can run it: a line and an exit status. Not part of
 * the example in docs/embedded.md; firmware has its own start-up code. */
#include <stdint.h>
#include <string.h>

extern uint32_t bm_data_start[], bm_data_end[], bm_data_load[], bm_bss_start[], bm_bss_end[], bm_stack_top[];
int main(void);
void bm_reset(void);
void bm_fault(void);
void bm_puts(const char *s);

/* ARM semihosting: SYS_WRITE0 (4) writes a NUL-terminated string, SYS_EXIT
 * (0x18) ends the program, 0x20026 meaning success and 0x20023 failure. */
static uintptr_t bm_semihost(uintptr_t op, uintptr_t arg) {
    register uintptr_t r0 __asm__("r0") = op;
    register uintptr_t r1 __asm__("r1") = arg;
    __asm__ volatile("bkpt 0xAB" : "+r"(r0) : "r"(r1) : "memory");
    return r0;
}

void bm_puts(const char *s) { (void)bm_semihost(0x04, (uintptr_t)s); }

static void bm_exit(int ok) {
    (void)bm_semihost(0x18, ok ? 0x20026u : 0x20023u);
    for (;;) {}
}

void bm_reset(void) {
    size_t data = (size_t)((char *)bm_data_end - (char *)bm_data_start);
    size_t bss = (size_t)((char *)bm_bss_end - (char *)bm_bss_start);
    memcpy(bm_data_start, bm_data_load, data);
    memset(bm_bss_start, 0, bss);
    int rc = main();
    char line[] = "baremetal: main returned 0\n";
    line[sizeof line - 3] = (char)('0' + (rc >= 0 && rc <= 9 ? rc : 9));
    bm_puts(line);
    bm_exit(rc == 0);
}

void bm_fault(void) {
    bm_puts("baremetal: fault\n");
    bm_exit(0);
}

/* The initial stack pointer, then reset, NMI, HardFault (the Cortex-M0+
 * minimum; every other exception stays disabled in this program). */
__attribute__((section(".vectors"), used)) static const uintptr_t bm_vectors[4] = {
    (uintptr_t)bm_stack_top, (uintptr_t)bm_reset, (uintptr_t)bm_fault, (uintptr_t)bm_fault};
