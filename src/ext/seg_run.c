/* seg_run.c: the slow part of segment arithmetic (seg_run.h): closing
 * a segment across silent jumps. */
#include "seg_run.h"

#if PC_HAVE_MONITORING

__attribute__((noinline)) void
seg_walk_silent(seg_frame *f, int32_t e, int yielding)
{
    seg_code *sc = f->sc;
    int32_t s = f->start, j, u;
    int guard = 0;

    while ((j = sc->silent[s]) < e || s > e) {
        if (j >= sc->n || ++guard > 10000) {
            PC_DESYNC();
            break;
        }
        if (yielding && sc->op[j] == seg_op.send && e == next_unit(sc, j))
            break;
        u = sc->quiet_ok[j] == SEG_QUIET_FORK ? fork_side(sc, j, e)
                                              : sc->target[j];
        close_run(sc, s, j);
        pc_g.pair[sc->op[j]][sc->op[u]]++;
        s = u;
    }
    close_run(sc, s, e);
    f->start = -1;
}

#endif /* PC_HAVE_MONITORING */
