/* SPDX-License-Identifier: MIT */
/* ticker.c - a program that keeps running: a little sensor loop, for watching a live trace.
 *
 *     ticker SECONDS [RATE]
 *
 * Reads a fake sensor, filters it and reports, RATE rounds a second (default 1000) for SECONDS
 * seconds (0: until killed). Follow it from another terminal while it runs:
 *     CYGTRACE_OUT=ring ./ticker 60 &
 *     cygtrace live --follow=ring ./ticker */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static unsigned seed = 1;

int sensor_read(int channel)
{
    seed = seed * 1103515245u + 12345u;
    return (int)((seed >> 16) & 0x3ff) + channel;
}

int filter_step(int acc, int sample)
{
    return acc + (sample - acc) / 4;
}

int filter_run(int channel, int acc)
{
    for (int i = 0; i < 3; i++)
        acc = filter_step(acc, sensor_read(channel));
    return acc;
}

void report_value(int channel, int value, long round)
{
    if (round % 1000 == 0)
        printf("ticker: round %ld channel %d value %d\n", round, channel, value);
}

void control_round(long round, int *acc)
{
    for (int ch = 0; ch < 2; ch++) {
        acc[ch] = filter_run(ch, acc[ch]);
        report_value(ch, acc[ch], round);
    }
}

static double now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
    double seconds = argc > 1 ? atof(argv[1]) : 10, rate = argc > 2 ? atof(argv[2]) : 1000;
    double start = now(), next = start;
    struct timespec gap;
    int acc[2] = {0, 0};

    if (rate <= 0)
        rate = 1000;
    setvbuf(stdout, NULL, _IOLBF, 0);
    for (long round = 0; seconds <= 0 || now() - start < seconds; round++) {
        control_round(round, acc);
        next += 1 / rate;
        double wait = next - now();
        if (wait > 0) {
            gap.tv_sec = (time_t)wait;
            gap.tv_nsec = (long)((wait - (double)gap.tv_sec) * 1e9);
            nanosleep(&gap, NULL);
        }
    }
    printf("ticker: done\n");
    return 0;
}
