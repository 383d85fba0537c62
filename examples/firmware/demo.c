/* demo.c - calls worth a trace: the call structure of the "Poor Man's Trace" example, run a few
 * times, then the apple crumble of examples/crumble with the UART for printf. Prints
 * "demo: done" and sleeps, so that a debugger can stop the core and read the ring:
 *     cygtrace tree build/firmware/mps2-an385/demo.elf ring.bin */
#include "board.h"

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
    board_puts("buy ");
    board_putu((uint32_t)grams);
    board_puts(" g of ");
    board_puts(what);
    board_puts("\n");
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
    board_puts("skin and dice the ");
    board_puts(what);
    board_puts("\n");
}

void Crumble_prepare_apples(void)
{
    Crumble_skin_and_dice("apples");
}

void Crumble_mix(void)
{
    board_puts("rub the butter, flour and sugar into crumbs\n");
}

void Crumble_put(const char *what, const char *where)
{
    board_puts("put the ");
    board_puts(what);
    board_puts(" ");
    board_puts(where);
    board_puts("\n");
}

void Crumble_finalize(void)
{
    Crumble_put("apples", "in the dish");
    Crumble_put("crumbs", "on the apples");
}

void Crumble_bake(int minutes)
{
    board_puts("bake for ");
    board_putu((uint32_t)minutes);
    board_puts(" minutes\n");
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
    for (int run = 0; run < 3; run++) {
        board_puts("DEMO_Run: ");
        board_putu((uint32_t)DEMO_Run());
        board_puts("\n");
    }
    Crumble_make_apple_crumble();
    board_puts("demo: done\n");
    return 0;
}
