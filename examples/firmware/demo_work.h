/* SPDX-License-Identifier: MIT */
/* demo_work.h - the calls the demo and stream examples make, each program including it once
 * (so they are built, instrumented, with it): the call structure of the "Poor Man's Trace"
 * example, then the apple crumble of examples/crumble. The program says where the crumble's
 * text goes first: WORK_PUTS(const char *) and WORK_PUTU(uint32_t) (the demo: the UART; the
 * stream example, whose UART carries the stream: nowhere). */
#ifndef DEMO_WORK_H
#define DEMO_WORK_H

#include <stdint.h>

int calcValue(int a, int b)
{
    return a * b + 1;
}

int getValue(int v)
{
    return calcValue(v, 2) - 1;
}

int decide(int i)
{
    return i < 10 ? calcValue(i, 5) + getValue(7) : getValue(i);
}

int DEMO_Run(void)
{
    int sum = 0;

    for (int i = 8; i < 12; i++)
        sum += decide(i);
    return sum;
}

void Crumble_buy(const char *what, int grams)
{
    WORK_PUTS("buy ");
    WORK_PUTU((uint32_t)grams);
    WORK_PUTS(" g of ");
    WORK_PUTS(what);
    WORK_PUTS("\n");
}

void Crumble_buy_stuff(void)
{
    Crumble_buy("apples", 600);
    Crumble_buy("butter", 100);
    Crumble_buy("flour", 150);
    Crumble_buy("sugar", 100);
    Crumble_buy("cinnamon", 5);
}

void Crumble_skin_and_dice(const char *what)
{
    WORK_PUTS("skin and dice the ");
    WORK_PUTS(what);
    WORK_PUTS("\n");
}

void Crumble_prepare_apples(void)
{
    Crumble_skin_and_dice("apples");
}

void Crumble_mix(void)
{
    WORK_PUTS("rub the butter, flour and sugar into crumbs\n");
}

void Crumble_put(const char *what, const char *where)
{
    WORK_PUTS("put the ");
    WORK_PUTS(what);
    WORK_PUTS(" ");
    WORK_PUTS(where);
    WORK_PUTS("\n");
}

void Crumble_finalize(void)
{
    Crumble_put("apples", "in the dish");
    Crumble_put("crumbs", "on the apples");
}

void Crumble_bake(int minutes)
{
    WORK_PUTS("bake for ");
    WORK_PUTU((uint32_t)minutes);
    WORK_PUTS(" minutes\n");
}

void Crumble_cook(void)
{
    Crumble_put("dish", "in the oven at 180 C");
    Crumble_bake(40);
}

void Crumble_make_apple_crumble(void)
{
    Crumble_buy_stuff();
    Crumble_prepare_apples();
    Crumble_mix();
    Crumble_finalize();
    Crumble_cook();
}

#endif
