/*
 * split.c — which of the selected pairs shard i of N keeps. Shards split
 * by matrix: every process loads (generates, reads, checks the reference
 * of) each matrix it runs, so a matrix whose pairs went to two shards is
 * loaded twice. A matrix is one item, its pairs' estimated seconds plus
 * its load (runner/plan/cost.c). Only where that cannot balance — fewer
 * matrices than shards, or one matrix larger than a shard's share — is a
 * matrix cut into k pieces, contiguous runs of its pairs of about equal
 * cost, each piece carrying a whole load: as few pieces as balance needs.
 *
 * Assignment: longest processing time first (items by cost, largest first,
 * ties in plan order), each to the shard with the least load so far (ties:
 * the lowest shard), through a min-heap. Then, up to MAX_ROUNDS times while
 * the busiest shard exceeds the mean by more than SLACK, the largest item
 * that can still be cut is cut into one more piece and the assignment is
 * made again; the best assignment seen is kept (the first, unsplit one on
 * ties). Everything depends only on the plan, so every shard computes the
 * same partition and keeps its own part: each pair belongs to one piece,
 * each piece to one shard, and the N shards cover the selection exactly
 * once.
 */
#include <stdlib.h>
#include <string.h>

#include "select.h"

#define SLACK 1.10
#define MAX_ROUNDS 64

typedef struct group {
    int first, n;               /* pairs wl->w[first .. first+n), one matrix */
    int pieces;                 /* 1 = whole */
    double run_s, load_s;
} group;

typedef struct item {
    int first, n;
    double cost;
    int owner;                  /* shard, 0-based */
} item;

typedef struct split {
    sp_worklist *wl;
    group *g;
    int ng;
    item *it;
    int nit;
    double *load;               /* per shard */
    int *heap, count;
} split;

static int by_cost_desc(const void *a, const void *b)
{
    const item *x = a, *y = b;
    if (x->cost != y->cost)
        return x->cost < y->cost ? 1 : -1;
    return x->first - y->first;
}

static int by_first(const void *a, const void *b)
{
    return ((const item *)a)->first - ((const item *)b)->first;
}

/* Is shard a less loaded than shard b (ties: the lower index)? */
static int lighter(const split *s, int a, int b)
{
    return s->load[a] < s->load[b] || (s->load[a] == s->load[b] && a < b);
}

/* Restore the heap below position i after heap[i]'s load grew. */
static void sift_down(split *s, int i)
{
    for (;;) {
        int l = 2 * i + 1, r = l + 1, m = i;
        if (l < s->count && lighter(s, s->heap[l], s->heap[m]))
            m = l;
        if (r < s->count && lighter(s, s->heap[r], s->heap[m]))
            m = r;
        if (m == i)
            return;
        int t = s->heap[i];
        s->heap[i] = s->heap[m], s->heap[m] = t;
        i = m;
    }
}

/* The pieces of every group as items, each piece a contiguous run of the
 * group's pairs: a pair goes to the piece its cost midpoint falls in. */
static void make_items(split *s)
{
    s->nit = 0;
    for (int gi = 0; gi < s->ng; gi++) {
        const group *g = &s->g[gi];
        double share = g->run_s / g->pieces, before = 0;
        int cur = -1;
        for (int i = g->first; i < g->first + g->n; i++) {
            double c = s->wl->w[i].cost;
            int piece = share > 0 ? (int)((before + c / 2) / share) : 0;
            piece = piece < g->pieces ? piece : g->pieces - 1;
            before += c;
            if (piece != cur) {
                s->it[s->nit++] = (item){i, 0, g->load_s, 0};
                cur = piece;
            }
            s->it[s->nit - 1].n++;
            s->it[s->nit - 1].cost += c;
        }
    }
}

/* LPT over the items; the busiest shard's load. */
static double assign(split *s)
{
    qsort(s->it, (size_t)s->nit, sizeof *s->it, by_cost_desc);
    for (int k = 0; k < s->count; k++)
        s->load[k] = 0, s->heap[k] = k;
    double most = 0;
    for (int i = 0; i < s->nit; i++) {
        int k = s->heap[0];
        s->it[i].owner = k;
        s->load[k] += s->it[i].cost;
        most = s->load[k] > most ? s->load[k] : most;
        sift_down(s, 0);
    }
    return most;
}

/* The group holding pair position p. */
static group *group_of(split *s, int p)
{
    int lo = 0, hi = s->ng - 1;
    while (lo < hi) {
        int mid = (lo + hi + 1) / 2;
        if (s->g[mid].first <= p)
            lo = mid;
        else
            hi = mid - 1;
    }
    return &s->g[lo];
}

/* Cut the largest item that can be cut into one more piece of its group;
 * 0 when none can (items sorted by cost). */
static int cut_one(split *s)
{
    for (int i = 0; i < s->nit; i++) {
        group *g = group_of(s, s->it[i].first);
        if (s->it[i].n > 1 && g->pieces < g->n) {
            g->pieces++;
            return 1;
        }
    }
    return 0;
}

/* Groups (one per matrix, plan order) with their costs and the mean load. */
static int make_groups(split *s, const double *load_s, double *mean)
{
    double total = 0;
    for (int i = 0; i < s->wl->n; i++) {
        const sp_work *w = &s->wl->w[i];
        if (s->ng == 0 || s->wl->w[s->g[s->ng - 1].first].matrix != w->matrix) {
            s->g[s->ng++] = (group){i, 0, 1, 0, load_s[w->matrix]};
            total += load_s[w->matrix];
        }
        s->g[s->ng - 1].n++;
        s->g[s->ng - 1].run_s += w->cost;
        total += w->cost;
    }
    *mean = total / s->count;
    /* a matrix larger than a shard's share cannot stay whole */
    for (int gi = 0; gi < s->ng; gi++) {
        group *g = &s->g[gi];
        while (g->pieces < g->n &&
               g->run_s / g->pieces + g->load_s > SLACK * *mean && g->pieces < s->count)
            g->pieces++;
    }
    return 0;
}

/* Assign, cutting while it helps; leaves the best assignment in s->it. */
static int best_assignment(split *s, double mean, sp_err *err)
{
    item *best = malloc((size_t)s->wl->n * sizeof *best);
    if (!best)
        return sp_fail(err, "out of memory sharding the plan");
    make_items(s);
    double best_most = assign(s);
    int nbest = s->nit;
    memcpy(best, s->it, (size_t)s->nit * sizeof *best);
    for (int round = 0; round < MAX_ROUNDS && best_most > SLACK * mean && cut_one(s);
         round++) {
        make_items(s);
        double most = assign(s);
        if (most < best_most) {
            best_most = most, nbest = s->nit;
            memcpy(best, s->it, (size_t)s->nit * sizeof *best);
        }
    }
    memcpy(s->it, best, (size_t)nbest * sizeof *best);
    s->nit = nbest;
    free(best);
    return 0;
}

/* Keep the pairs of shard index (1-based) of count; wl in plan order,
 * load_s[m] the estimated seconds to load matrix m. */
int sp_shard_keep(sp_worklist *wl, const double *load_s, int index, int count, sp_err *err)
{
    split s = {.wl = wl, .count = count};
    size_t n = (size_t)(wl->n ? wl->n : 1);
    s.g = malloc(n * sizeof *s.g);
    s.it = malloc(n * sizeof *s.it);
    s.load = malloc((size_t)count * sizeof *s.load);
    s.heap = malloc((size_t)count * sizeof *s.heap);
    double mean = 0;
    int rc = !s.g || !s.it || !s.load || !s.heap
                 ? sp_fail(err, "out of memory sharding the plan")
                 : make_groups(&s, load_s, &mean);
    if (rc == 0 && wl->n > 0)
        rc = best_assignment(&s, mean, err);
    if (rc == 0) {
        qsort(s.it, (size_t)s.nit, sizeof *s.it, by_first);
        int kept = 0;
        for (int i = 0; i < s.nit; i++)
            if (s.it[i].owner == index - 1)
                for (int p = s.it[i].first; p < s.it[i].first + s.it[i].n; p++)
                    wl->w[kept++] = wl->w[p];
        wl->n = kept;
    }
    free(s.g);
    free(s.it);
    free(s.load);
    free(s.heap);
    return rc;
}
