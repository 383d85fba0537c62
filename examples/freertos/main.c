/* SPDX-License-Identifier: MIT */
/* main.c - the FreeRTOS example: two tasks and an interrupt, traced with cygtrace.
 *
 * A board timer interrupts every FREERTOS_PERIOD_US and gives the semaphore "tick_sem"; the
 * task "producer" waits on it, makes a job (make_job -> checksum -> crc_word) and sends it on
 * the queue "jobs"; the task "consumer" takes it, checks it (consume -> checksum) and stores
 * the result under the mutex "results". The trace shows a call tree per task and per
 * interrupt, with who woke whom: the producer woken by the timer's handler, the consumer by
 * the producer.
 *
 * After FREERTOS_ROUNDS jobs (default 40) the consumer stores through a corrupt pointer, from
 * consumer -> consume -> store_result: a bus fault, in HardFault, where cygtrace_fault_handler
 * records it and freezes the ring; the hook below says so on the UART and waits for a debugger:
 *     cygtrace pull --gdb=HOST:PORT build/firmware/mps2-an385/freertos.elf
 * FREERTOS_LIVE (freertos_live.elf): no fault, for ever, the ring drained over the UART by the
 * idle task (vApplicationIdleHook) for `cygtrace live`; with FREERTOS_RTT too (freertos_rtt.elf)
 * drained into the RTT channel instead, for `cygtrace live --gdb`.
 *
 * The timer: TIMER1 of the CMSDK boards (TIMER0 is the trace's clock), TIMER2 of the nRF51,
 * whose TIMER1 is the kernel's tick (the nRF51 has no SysTick). */
#include "FreeRTOS.h"
#include "queue.h"
#include "semphr.h"
#include "task.h"

#include "board.h"
#include "cygtrace_cm.h"
#ifdef FREERTOS_RTT
#include "cygtrace_rtt.h"
#endif

#ifndef FREERTOS_ROUNDS
#define FREERTOS_ROUNDS 40
#endif
#ifndef FREERTOS_PERIOD_US
#define FREERTOS_PERIOD_US 3000u /* 3 ticks of the kernel */
#endif

#define NOINSTR BOARD_NOINSTR

/* Nothing answers there on any of the four boards: a precise bus fault (crash.c). */
#define BAD_POINTER 0xBFFFFFF0u

#define REG(a) (*(volatile uint32_t *)(a))
#define NVIC_ISER REG(0xE000E100u)
#define NVIC_IPR(n) REG(0xE000E400u + 4u * ((n) / 4u))

#ifdef BOARD_NRF51
#define TIMER_IRQ 10 /* TIMER2 */
#define TIMER_BASE 0x4000A000u
#define TICK_IRQ 9 /* TIMER1: the kernel's tick */
#define TICK_BASE 0x40009000u
#define NRF_START(t) REG((t) + 0x000u)
#define NRF_COMPARE0(t) REG((t) + 0x140u)
#define NRF_SHORTS(t) REG((t) + 0x200u)
#define NRF_INTENSET(t) REG((t) + 0x304u)
#define NRF_MODE(t) REG((t) + 0x504u)
#define NRF_BITMODE(t) REG((t) + 0x508u)
#define NRF_PRESCALER(t) REG((t) + 0x510u)
#define NRF_CC0(t) REG((t) + 0x540u)
#define TIMER_HZ 16000000u
#else
#ifndef CMSDK_TIMER
#define CMSDK_TIMER 0x40000000u
#endif
#ifndef CMSDK_CLOCK_HZ
#define CMSDK_CLOCK_HZ 25000000u
#endif
#ifndef CMSDK_TIMER1_IRQ
#define CMSDK_TIMER1_IRQ 9 /* AN385/AN386; the AN505's is 4 (the build says) */
#endif
#define TIMER_IRQ CMSDK_TIMER1_IRQ
#define TIMER_BASE (CMSDK_TIMER + 0x1000u) /* TIMER1 */
#define CMSDK_CTRL(t) REG((t) + 0x00u)     /* bit 0 enable, bit 3 interrupt enable */
#define CMSDK_VALUE(t) REG((t) + 0x04u)
#define CMSDK_RELOAD(t) REG((t) + 0x08u)
#define CMSDK_INTCLEAR(t) REG((t) + 0x0Cu)
#define TIMER_HZ CMSDK_CLOCK_HZ
#endif

/* The vector table's name for device interrupt n (startup.c): IRQ<n>_Handler (n a plain
 * number: no u suffix). */
#define IRQ_NAME(n) IRQ_NAME_(n)
#define IRQ_NAME_(n) IRQ##n##_Handler

struct job {
    uint32_t seq;
    uint32_t data[4];
    uint32_t crc;
};

static QueueHandle_t jobs;
static SemaphoreHandle_t tick_sem, results_lock;
static uint32_t results[8];
/* Where store_result() writes: the corruption the consumer's last round makes. */
static uint32_t *volatile result_slot = results;
static volatile uint32_t rounds;

/* ---- the work: instrumented ------------------------------------------------------------- */

uint32_t crc_word(uint32_t crc, uint32_t w)
{
    crc ^= w;
    for (int i = 0; i < 32; i++)
        crc = crc >> 1 ^ (0xEDB88320u & -(crc & 1u));
    return crc;
}

uint32_t checksum(const uint32_t *d, unsigned n)
{
    uint32_t crc = ~0u;

    for (unsigned i = 0; i < n; i++)
        crc = crc_word(crc, d[i]);
    return ~crc;
}

void make_job(struct job *j, uint32_t seq)
{
    j->seq = seq;
    for (unsigned i = 0; i < 4; i++)
        j->data[i] = seq * 2654435761u + i;
    j->crc = checksum(j->data, 4);
}

void store_result(uint32_t seq, uint32_t v)
{
    result_slot[seq % 8u] += v; /* a load first: the fault is precise, at this line */
}

int consume(const struct job *j)
{
    int ok = checksum(j->data, 4) == j->crc;

    xSemaphoreTake(results_lock, portMAX_DELAY);
    store_result(j->seq, j->crc);
    xSemaphoreGive(results_lock);
    return ok;
}

void producer(void *arg)
{
    struct job j;
    uint32_t seq = 0;

    (void)arg;
    for (;;) {
        xSemaphoreTake(tick_sem, portMAX_DELAY);
        make_job(&j, seq++);
        xQueueSend(jobs, &j, portMAX_DELAY);
    }
}

void consumer(void *arg)
{
    struct job j;

    (void)arg;
    for (;;) {
        xQueueReceive(jobs, &j, portMAX_DELAY);
        consume(&j);
        rounds++;
#ifndef FREERTOS_LIVE
        if (rounds % 10u == 0) {
            board_puts("freertos: round ");
            board_putu(rounds);
            board_puts("\n");
        }
        if (rounds == FREERTOS_ROUNDS)
            result_slot = (uint32_t *)BAD_POINTER;
#endif
    }
}

/* ---- not instrumented: interrupts, hooks, set-up ------------------------------------------ */

/* The timer's interrupt: gives tick_sem. Its calls form a context of their own (the trace
 * macros), and the producer it wakes says so. */
NOINSTR void IRQ_NAME(TIMER_IRQ)(void)
{
    BaseType_t woken = pdFALSE;

    traceISR_ENTER();
#ifdef BOARD_NRF51
    NRF_COMPARE0(TIMER_BASE) = 0;
    (void)NRF_COMPARE0(TIMER_BASE);
#else
    CMSDK_INTCLEAR(TIMER_BASE) = 1;
#endif
    xSemaphoreGiveFromISR(tick_sem, &woken);
    portYIELD_FROM_ISR(woken); /* traceISR_EXIT() */
}

NOINSTR static void irq_enable(unsigned irq, uint32_t prio)
{
    uint32_t shift = 8u * (irq % 4u);

    /* Word access: ARMv6-M has no byte access to the priority registers. */
    NVIC_IPR(irq) = (NVIC_IPR(irq) & ~(0xFFu << shift)) | prio << shift;
    NVIC_ISER = 1u << irq;
}

#ifdef BOARD_NRF51
/* nRF51 timer t: 16 MHz, an interrupt every ticks, cleared on COMPARE[0]. */
NOINSTR static void nrf_timer_start(uint32_t t, uint32_t ticks)
{
    NRF_MODE(t) = 0;
    NRF_BITMODE(t) = 3;
    NRF_PRESCALER(t) = 0;
    NRF_CC0(t) = ticks;
    NRF_SHORTS(t) = 1u;
    NRF_INTENSET(t) = 1u << 16;
    NRF_START(t) = 1;
}

void SysTick_Handler(void); /* the ARM_CM0 port's tick */

/* The kernel's tick from TIMER1 (configOVERRIDE_DEFAULT_TICK_CONFIGURATION: the port's
 * vPortSetupTimerInterrupt is weak). */
NOINSTR void vPortSetupTimerInterrupt(void)
{
    nrf_timer_start(TICK_BASE, 16000000u / configTICK_RATE_HZ);
    irq_enable(TICK_IRQ, configKERNEL_INTERRUPT_PRIORITY);
}

NOINSTR void IRQ_NAME(TICK_IRQ)(void)
{
    NRF_COMPARE0(TICK_BASE) = 0;
    (void)NRF_COMPARE0(TICK_BASE);
    SysTick_Handler();
}
#endif

NOINSTR static void timer_start(void)
{
    uint32_t ticks = TIMER_HZ / 1000000u * FREERTOS_PERIOD_US;

#ifdef BOARD_NRF51
    nrf_timer_start(TIMER_BASE, ticks);
#else
    CMSDK_RELOAD(TIMER_BASE) = ticks;
    CMSDK_VALUE(TIMER_BASE) = ticks;
    CMSDK_CTRL(TIMER_BASE) = 9u;
#endif
    irq_enable(TIMER_IRQ, 0xC0u);
}

NOINSTR void freertos_assert_failed(const char *file, int line)
{
    __asm__ volatile("cpsid i" ::: "memory");
    board_puts("freertos: assertion failed at ");
    board_puts(file);
    board_puts(":");
    board_putu((uint32_t)line);
    board_puts("\n");
    board_idle();
}

#if defined(FREERTOS_LIVE) && !defined(FREERTOS_RTT)
NOINSTR static size_t uart_sink(void *arg, const void *buf, size_t len)
{
    (void)arg;
    return board_uart_try_write(buf, len);
}

#endif

/* The idle task drains (freertos_live): whatever the tasks and interrupts recorded goes out
 * while nothing else runs. */
NOINSTR void vApplicationIdleHook(void)
{
#ifdef FREERTOS_LIVE
    cygtrace_drain();
#endif
}

/* Called by cygtrace_fault_handler once the trace is frozen. */
NOINSTR void cygtrace_cm_fault_hook(void)
{
    board_puts("freertos: HardFault in the consumer, trace frozen\n");
    board_idle();
}

int main(void)
{
#if defined(FREERTOS_LIVE) && defined(FREERTOS_RTT)
    board_puts("freertos: streaming the trace over RTT\n");
    cygtrace_rtt_init(); /* the control block before the first frame: a host finds it at once */
    cygtrace_drain_init(cygtrace_rtt_sink, NULL);
#elif defined(FREERTOS_LIVE)
    cygtrace_drain_init(uart_sink, NULL);
#else
    board_puts("freertos: producer, consumer, timer interrupt; ");
    board_putu(FREERTOS_ROUNDS);
    board_puts(" rounds, then a fault\n");
#endif
    jobs = xQueueCreate(2, sizeof(struct job));
    tick_sem = xSemaphoreCreateBinary();
    results_lock = xSemaphoreCreateMutex();
    configASSERT(jobs != NULL && tick_sem != NULL && results_lock != NULL);
    vQueueAddToRegistry(jobs, "jobs");
    vQueueAddToRegistry(tick_sem, "tick_sem");
    vQueueAddToRegistry(results_lock, "results");
    xTaskCreate(producer, "producer", 256, NULL, 2, NULL);
    xTaskCreate(consumer, "consumer", 256, NULL, 1, NULL);
    timer_start();
#ifdef FREERTOS_LIVE
    /* The names of the tasks and queues out before the tasks run: a host that missed them
     * would show handles (the ring is drained by the idle task only, once they run). */
    cygtrace_drain_flush();
#endif
    vTaskStartScheduler();
    return 0; /* not reached: the scheduler runs for ever */
}
