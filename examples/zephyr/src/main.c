/* SPDX-License-Identifier: MIT */
/* main.c - the Zephyr example: a timer interrupt gives the semaphore tick_sem; the producer
 * takes it, makes a job and puts it into the message queue jobs (and sleeps a little every 8th
 * round); the consumer gets it, checks it and stores its result under the mutex results_lock. After ZEPHYR_ROUNDS rounds the
 * consumer's scale of results becomes 0:
 *     consumer_main -> consume -> store_result: a division by zero (a usage fault: Zephyr sets
 *     the core's DIV_0_TRP), which Zephyr's fatal error path
 * hands to the cygtrace module's k_sys_fatal_error_handler(): it records the fault in the
 * consumer's tree, freezes the ring and says "cygtrace: trace frozen" on the UART, then waits
 * for a debugger:
 *     cygtrace pull --gdb=HOST:PORT zephyr.elf
 * With ZEPHYR_ROUNDS 0 it never faults.
 *
 * The timer: Timer 0 of the LM3S6965 (the qemu_cortex_m3 board), IRQ 19, programmed here (Zephyr
 * has no driver for it). */
#include <zephyr/kernel.h>
#include <zephyr/irq.h>
#include <zephyr/sys/sys_io.h>

#ifdef CONFIG_CYGTRACE /* the module's header: the example builds without it too */
#include "cygtrace_zephyr.h"
#endif

#define GPTM0 0x40030000u
#define GPTM_CFG 0x00u
#define GPTM_TAMR 0x04u
#define GPTM_CTL 0x0Cu
#define GPTM_IMR 0x18u
#define GPTM_ICR 0x24u
#define GPTM_TAILR 0x28u
#define GPTM0_IRQ 19

struct job {
    uint32_t seq;
    uint32_t data[4];
    uint32_t crc;
};

K_MSGQ_DEFINE(jobs, sizeof(struct job), 4, 4);
K_SEM_DEFINE(tick_sem, 0, 1);
K_MUTEX_DEFINE(results_lock);

static uint32_t results[8];
/* What store_result() divides by: the corruption the consumer's last round makes. */
static volatile uint32_t result_scale = 1;
static volatile uint32_t rounds;

uint32_t crc_word(uint32_t crc, uint32_t w)
{
    crc ^= w;
    for (int i = 0; i < 32; i++)
        crc = crc >> 1 ^ (0xEDB88320u & -(crc & 1u));
    return crc;
}

uint32_t checksum(const uint32_t *w, int n)
{
    uint32_t crc = ~0u;

    for (int i = 0; i < n; i++)
        crc = crc_word(crc, w[i]);
    return ~crc;
}

void make_job(struct job *j, uint32_t seq)
{
    j->seq = seq;
    for (int i = 0; i < 4; i++)
        j->data[i] = seq * 2654435761u + (uint32_t)i;
    j->crc = checksum(j->data, 4);
}

void store_result(uint32_t seq, uint32_t v)
{
    results[seq % 8u] += v / result_scale; /* the fault is precise, at this line */
}

int consume(const struct job *j)
{
    int ok = checksum(j->data, 4) == j->crc;

    k_mutex_lock(&results_lock, K_FOREVER);
    store_result(j->seq, j->crc);
    k_mutex_unlock(&results_lock);
    return ok;
}

void producer_main(void *a, void *b, void *c)
{
    struct job j;

    for (uint32_t seq = 0;; seq++) {
        k_sem_take(&tick_sem, K_FOREVER);
        make_job(&j, seq);
        k_msgq_put(&jobs, &j, K_FOREVER);
        if (seq % 8u == 7u)
            k_msleep(1); /* a delay, which the system timer's interrupt ends */
    }
}

void consumer_main(void *a, void *b, void *c)
{
    struct job j;

    for (;;) {
        k_msgq_get(&jobs, &j, K_FOREVER);
        consume(&j);
        if (++rounds == ZEPHYR_ROUNDS)
            result_scale = 0;
    }
}

/* The consumer first (a higher priority): the producer's put wakes it at once. */
K_THREAD_DEFINE(consumer, 1024, consumer_main, NULL, NULL, NULL, 4, 0, 0);
K_THREAD_DEFINE(producer, 1024, producer_main, NULL, NULL, NULL, 5, 0, 0);

void timer_isr(const void *arg)
{
    ARG_UNUSED(arg);
    sys_write32(1u, GPTM0 + GPTM_ICR);
    k_sem_give(&tick_sem);
}

int main(void)
{
    /* Statically defined objects go by their symbols (jobs, tick_sem); this one is named
     * otherwise, as an object made at run time would be. */
#ifdef CONFIG_CYGTRACE
    cygtrace_zephyr_name(&results_lock, CYG_OBJ_K_MUTEX, "results");
#endif
    IRQ_CONNECT(GPTM0_IRQ, 2, timer_isr, NULL, 0);
    sys_write32(0u, GPTM0 + GPTM_CTL);
    sys_write32(0u, GPTM0 + GPTM_CFG);             /* 32 bits */
    sys_write32(2u, GPTM0 + GPTM_TAMR);            /* periodic */
    sys_write32(sys_clock_hw_cycles_per_sec() / 200u, GPTM0 + GPTM_TAILR); /* 5 ms */
    sys_write32(1u, GPTM0 + GPTM_IMR);             /* time-out interrupt */
    irq_enable(GPTM0_IRQ);
    sys_write32(1u, GPTM0 + GPTM_CTL);             /* go */
    printk("cygtrace zephyr example: %u rounds\n", (unsigned)ZEPHYR_ROUNDS);
    return 0;
}
