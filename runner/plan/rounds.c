/*
 * rounds.c — `rounds = R`: the selected pairs executed R times, each round
 * in a freshly shuffled order (as Google Benchmark's random interleaving
 * does), so that slow drift — clocks, temperature, a neighbour process —
 * lands on different combinations in different rounds and shows up as
 * spread between rounds instead of as a bias of whichever combination ran
 * during it. A round keeps each matrix's pairs together (a matrix is
 * loaded once a round) but shuffles the matrices and the pairs within.
 */
#include <stdlib.h>
#include <string.h>

#include "select.h"

/* splitmix64: a small, well-mixed generator; a round's stream depends on
 * (seed, round) only. */
static uint64_t next(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* An unbiased draw from 0..n-1 (n >= 1), by rejection. */
static size_t below(uint64_t *s, size_t n)
{
    uint64_t limit = UINT64_MAX - UINT64_MAX % n, x;
    do
        x = next(s);
    while (x >= limit);
    return (size_t)(x % n);
}

static void shuffle_works(sp_work *w, size_t n, uint64_t *s)
{
    for (size_t i = n; i > 1; i--) {
        size_t j = below(s, i);
        sp_work t = w[i - 1];
        w[i - 1] = w[j], w[j] = t;
    }
}

/* One shuffled round of the n pairs of base into out: matrix groups (runs
 * of equal w.matrix in base) in a random order, each group shuffled. */
static int shuffled_round(const sp_work *base, int n, int round, uint64_t *s, sp_work *out)
{
    int groups = 0;
    for (int i = 0; i < n; i++)
        groups += i == 0 || base[i].matrix != base[i - 1].matrix;
    int *start = malloc((size_t)(groups + 1) * sizeof *start);
    if (!start)
        return -1;
    for (int i = 0, g = 0; i < n; i++)
        if (i == 0 || base[i].matrix != base[i - 1].matrix)
            start[g++] = i;
    start[groups] = n;
    int *order = malloc((size_t)groups * sizeof *order);
    if (!order) {
        free(start);
        return -1;
    }
    for (int g = 0; g < groups; g++)
        order[g] = g;
    for (int g = groups; g > 1; g--) {
        int j = (int)below(s, (size_t)g), t = order[g - 1];
        order[g - 1] = order[j], order[j] = t;
    }
    int k = 0;
    for (int g = 0; g < groups; g++) {
        int a = start[order[g]], b = start[order[g] + 1];
        memcpy(out + k, base + a, (size_t)(b - a) * sizeof *out);
        shuffle_works(out + k, (size_t)(b - a), s);
        k += b - a;
    }
    for (int i = 0; i < n; i++)
        out[i].round = round;
    free(order);
    free(start);
    return 0;
}

int sp_worklist_rounds(sp_worklist *wl, int rounds, long seed, sp_err *err)
{
    if (rounds < 1)
        return sp_fail(err, "rounds = %d: expected at least 1", rounds);
    for (int i = 0; i < wl->n; i++)
        wl->w[i].round = 0;
    if (rounds == 1 || wl->n == 0)
        return 0;
    size_t total = (size_t)wl->n * (size_t)rounds;
    if (total > (size_t)INT32_MAX)
        return sp_fail(err, "rounds = %d x %d pairs: more than 2^31 runs", rounds, wl->n);
    sp_work *all = malloc(total * sizeof *all);
    if (!all)
        return sp_fail(err, "out of memory for %d rounds of %d pairs", rounds, wl->n);
    for (int r = 0; r < rounds; r++) {
        uint64_t s = (uint64_t)seed * 0x2545f4914f6cdd1dULL + (uint64_t)r;
        if (shuffled_round(wl->w, wl->n, r, &s, all + (size_t)r * wl->n)) {
            free(all);
            return sp_fail(err, "out of memory shuffling round %d", r + 1);
        }
    }
    free(wl->w);
    wl->w = all;
    wl->total_cost *= rounds;
    wl->n = (int)total;
    return 0;
}
