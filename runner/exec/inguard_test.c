/* inguard on the host: a changed input is found with its first changed element and put back when a copy is kept;
 * with no room for a copy its fingerprint still finds any change of a byte (and two words swapped), and says
 * that the problem must be made again. */
#include <stdlib.h>
#include <string.h>

#include "runner/exec/inguard.h"
#include "runner/testing/testutil.h"

struct reg_problem {
    float x[1000];
    double w[33]; /* 264 bytes: a tail past the last whole word of neither */
    unsigned char t[13];
};

static int two_inputs(reg_problem *p, reg_input *in, int max)
{
    if (max < 3) return -1;
    in[0] = (reg_input){"x", p->x, sizeof p->x, sizeof p->x[0]};
    in[1] = (reg_input){"w", p->w, sizeof p->w, sizeof p->w[0]};
    in[2] = (reg_input){"t", p->t, sizeof p->t, 1};
    return 3;
}

static const reg_op op = {.name = "guarded", .inputs = two_inputs};

static void fill(reg_problem *p)
{
    for (int i = 0; i < 1000; i++) p->x[i] = (float)i * 0.25f - 7;
    for (int i = 0; i < 33; i++) p->w[i] = 1.0 / (i + 1);
    for (int i = 0; i < 13; i++) p->t[i] = (unsigned char)(3 * i);
}

int main(void)
{
    int total = 0;
    for (int copy = 1; copy >= 0; copy--) {
        reg_problem p, was;
        inguard g;
        tl_err e = {{0}};
        int which;
        long long elem;
        fill(&p);
        was = p;
        CHECK(inguard_take_within(&g, &op, &p, 0, NULL, copy ? SIZE_MAX : 0, &e) == 0 && g.n == 3, "take: %s", e.msg);
        CHECK(inguard_check(&g, &which, &elem, &e) == 0, "untouched inputs changed (copy %d)", copy);
        const struct {
            void *at;
            int input;
            long long elem; /* as a copy names it */
        } rows[] = {{&p.x[0], 0, 0}, {&p.x[999], 0, 999}, {(char *)&p.x[517] + 3, 0, 517}, {&p.w[32], 1, 32},
                    {&p.t[12], 2, 12}};
        for (size_t r = 0; r < sizeof rows / sizeof *rows; r++, total++) {
            *(unsigned char *)rows[r].at ^= 0x10;
            int changed = inguard_check(&g, &which, &elem, &e);
            CHECK(changed == 1 && which == rows[r].input && elem == (copy ? rows[r].elem : -1),
                  "row %zu (copy %d): changed %d, input %d, element %lld", r, copy, changed, which, elem);
            int back = inguard_restore(&g, which, &e);
            CHECK(back == (copy ? 0 : 1), "row %zu: restore says %d", r, back);
            if (back) *(unsigned char *)rows[r].at ^= 0x10; /* what remaking the problem does */
            CHECK(!memcmp(&p, &was, sizeof p), "row %zu: the input is not as made", r);
        }
        float t0 = p.x[10]; /* two elements swapped: the sum of the words alone would not move */
        p.x[10] = p.x[11], p.x[11] = t0;
        CHECK(inguard_check(&g, &which, &elem, &e) == 1 && which == 0, "a swap went unseen (copy %d)", copy);
        char *why = inguard_reason(&g, 0, copy ? 10 : -1);
        CHECK(!strcmp(why, copy ? "wrote to its input x (first changed element 10)" : "wrote to its input x"), "%s", why);
        free(why);
        inguard_free(&g);
        total++;
    }
    return TEST_REPORT(total);
}
