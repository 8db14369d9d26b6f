/* qemu_insn: a TCG plugin for qemu-user that counts the guest instructions a
 * program executes, for instruction counts on other CPUs (Debian's qemu-user
 * ships no plugins). Every translated block adds its instruction count to one
 * counter each time it runs (an inline add, no call); at exit the total goes
 * to stderr as "qemu_insn: N instructions".
 *
 *   cc -shared -fPIC -O2 -o build/qemu_insn.so bench/qemu_insn.c
 *   qemu-aarch64 -plugin build/qemu_insn.so PROGRAM ARGS...
 *
 * Written against qemu's plugin interface as of qemu 7.2 (interface version
 * 1): the few declarations it needs are below, so that no qemu headers are
 * needed either. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef uint64_t qemu_plugin_id_t;
struct qemu_plugin_tb;
enum qemu_plugin_op { QEMU_PLUGIN_INLINE_ADD_U64 };

extern size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb);
extern void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id,
                                                  void (*cb)(qemu_plugin_id_t id, struct qemu_plugin_tb *tb));
extern void qemu_plugin_register_vcpu_tb_exec_inline(struct qemu_plugin_tb *tb, enum qemu_plugin_op op, void *ptr,
                                                     uint64_t imm);
extern void qemu_plugin_register_atexit_cb(qemu_plugin_id_t id, void (*cb)(qemu_plugin_id_t id, void *ud), void *ud);

__attribute__((visibility("default"))) int qemu_plugin_version = 1;

static uint64_t insns;

static void on_translate(qemu_plugin_id_t id, struct qemu_plugin_tb *tb) {
    (void)id;
    qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64, &insns, qemu_plugin_tb_n_insns(tb));
}

static void on_exit(qemu_plugin_id_t id, void *ud) {
    (void)id;
    (void)ud;
    fprintf(stderr, "qemu_insn: %llu instructions\n", (unsigned long long)insns);
}

__attribute__((visibility("default"))) int qemu_plugin_install(qemu_plugin_id_t id, const void *info, int argc,
                                                               char **argv) {
    (void)info;
    (void)argc;
    (void)argv;
    qemu_plugin_register_vcpu_tb_trans_cb(id, on_translate);
    qemu_plugin_register_atexit_cb(id, on_exit, NULL);
    return 0;
}
