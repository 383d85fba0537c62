/* SPDX-License-Identifier: MIT */
/* crumble.c - an apple crumble recipe with the call structure of etrace's example, without its
 * one-second pauses. Build with -finstrument-functions and the cygtrace runtime, run it, then:
 *     cygtrace tree --style=etrace build/examples/crumble cygtrace.out */
#include <stdio.h>

void Crumble_buy(const char *what, int grams)
{
    printf("buy %d g of %s\n", grams, what);
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
    printf("skin and dice the %s\n", what);
}

void Crumble_prepare_apples(void)
{
    Crumble_skin_and_dice("apples");
}

void Crumble_mix(void)
{
    printf("rub the butter, flour and sugar into crumbs\n");
}

void Crumble_put(const char *what, const char *where)
{
    printf("put the %s %s\n", what, where);
}

void Crumble_finalize(void)
{
    Crumble_put("apples", "in the dish");
    Crumble_put("crumbs", "on the apples");
}

void Crumble_bake(int minutes)
{
    printf("bake for %d minutes\n", minutes);
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

int main(void)
{
    Crumble_make_apple_crumble();
    return 0;
}
