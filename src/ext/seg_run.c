/* seg_run.c: the slow part of segment arithmetic (seg_run.h): closing
 * a segment across silent jumps. */
#include "seg_run.h"

#if PC_HAVE_MONITORING

/* A walk that does not reach e: take back its first n steps' runs and
 * pairs, so that a desync costs nothing but its own segment. */
static __attribute__((noinline, cold)) void
walk_undo(seg_code *sc, int32_t s, int32_t e, int n)
{
    while (n-- > 0) {
        int32_t j = sc->silent[s], u = seg_walk_next(sc, j, e);
        sc->starts[s]--;
        sc->ends[j]--;
        pc_g.pair[sc->op[j]][sc->op[u]]--;
        s = u;
    }
}

__attribute__((noinline)) void
seg_walk_silent(seg_thread *t, seg_frame *f, int32_t e, int yielding)
{
    seg_code *sc = f->sc;
    int32_t s = f->start, j, u;
    int steps = 0;

    /* Every loop meets an event: a walk passes each silent jump at most
     * once, so more steps than units is a walk that lost its way. */
    while ((j = sc->silent[s]) < e || s > e) {
        if (j >= sc->n || steps > sc->n) {
            SEG_DESYNC(t);
            walk_undo(sc, f->start, e, steps);
            f->start = -1;
            return;
        }
        if (yielding && sc->op[j] == seg_op.send && e == seg_next_unit(sc, j))
            break;
        u = seg_walk_next(sc, j, e);
        seg_close_run(sc, s, j);
        pc_g.pair[sc->op[j]][sc->op[u]]++;
        s = u;
        steps++;
    }
    seg_close_run(sc, s, e);
    f->start = -1;
}

#endif /* PC_HAVE_MONITORING */
