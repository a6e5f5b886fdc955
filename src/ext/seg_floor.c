/* seg_floor.c: the floor of segment counting (modes noop-segments and
 * noop-quiet): callbacks for the same events that count nothing.  Mode
 * noop-quiet turns off the same jumps, quiet branches, returns and
 * yields as mode count, so that it receives exactly the events count
 * does: what is left of count's cost above it is the collector's own
 * work per event (bench/events.py). */
#include "seg_floor.h"
#include "stats.h"

#if PC_HAVE_MONITORING

#include <string.h>

/* The floor: the same events, nothing done. */
static PyObject *
cb_noop(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    (void)args;
    (void)nargs;
    Py_RETURN_NONE;
}

/* The floor's JUMP and BRANCH (3.14: BRANCH_RIGHT): nothing done, but
 * the same jumps and quiet branches turned off, so that it receives
 * exactly the events count mode does. */
static PyObject *
cb_noop_jump(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    seg_code *sc;
    int32_t src;
    (void)self;
    if (nargs < 2 || (sc = seg_code_for(args[0])) == NULL)
        Py_RETURN_NONE;
    src = seg_unit_arg(args[1]);
    if ((uint32_t)src >= (uint32_t)sc->n)
        Py_RETURN_NONE;
    if (sc->quiet_ok[src] == SEG_QUIET_JUMP)
        return seg_quiet_site(sc, src);
    if (sc->quiet_ok[src] == SEG_QUIET_FORK)
        return Py_NewRef(seg_disable);
    Py_RETURN_NONE;
}

/* The floor's PY_RETURN and PY_YIELD: the same returns and yields
 * turned off as count's. */
static PyObject *
noop_leave(PyObject *const *args, Py_ssize_t nargs, int yielding)
{
    seg_code *sc;
    if (nargs < 1 || (sc = seg_code_for(args[0])) == NULL)
        Py_RETURN_NONE;
    return seg_return_result(sc, yielding);
}

static PyObject *
cb_noop_return(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    return noop_leave(args, nargs, 0);
}

static PyObject *
cb_noop_yield(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    return noop_leave(args, nargs, 1);
}

#if PC_BRANCH_LEFT_RIGHT
/* The floor's BRANCH_LEFT: the same sides turned off as count's. */
static PyObject *
cb_noop_left(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    seg_code *sc;
    int32_t src, nt;
    (void)self;
    if (nargs < 3 || (sc = seg_code_for(args[0])) == NULL)
        Py_RETURN_NONE;
    src = seg_unit_arg(args[1]);
    if ((uint32_t)src >= (uint32_t)sc->n || sc->span[src] <= 0)
        Py_RETURN_NONE;
    nt = seg_next_unit(sc, src);
    if (nt < sc->n && sc->quiet_ok[nt] == SEG_QUIET_LEFT &&
        seg_unit_arg(args[2]) == seg_next_unit(sc, nt))
        return Py_NewRef(seg_disable);
    Py_RETURN_NONE;
}
#endif

/* Each called straight by sys.monitoring, as count's callbacks are
 * (seg_events.c), counting the ints CPython made for its event as the
 * rare ones do: the floor of the same delivery. */
PC_SEG_VECTORCALL(noop_vc, cb_noop, 1)
PC_SEG_VECTORCALL(noop2_vc, cb_noop, 2)
PC_SEG_VECTORCALL(noop_jump_vc, cb_noop_jump, 2)
PC_SEG_VECTORCALL(noop_return_vc, cb_noop_return, 1)
PC_SEG_VECTORCALL(noop_yield_vc, cb_noop_yield, 1)
#if PC_BRANCH_LEFT_RIGHT
PC_SEG_VECTORCALL(noop_left_vc, cb_noop_left, 2)
#endif

vectorcallfunc
seg_floor_vc(const char *event, int quiet)
{
    if (quiet && strcmp(event, "JUMP") == 0)
        return noop_jump_vc;
    if (quiet && strcmp(event, "PY_RETURN") == 0)
        return noop_return_vc;
    if (quiet && strcmp(event, "PY_YIELD") == 0)
        return noop_yield_vc;
#if PC_BRANCH_LEFT_RIGHT
    if (quiet && strcmp(event, "BRANCH_LEFT") == 0)
        return noop_left_vc;
    if (quiet && strcmp(event, "BRANCH_RIGHT") == 0)
        return noop_jump_vc;
#else
    if (quiet && strcmp(event, "BRANCH") == 0)
        return noop_jump_vc;
#endif
    return pc_event_int_args(event) == 2 ? noop2_vc : noop_vc;
}

#endif /* PC_HAVE_MONITORING */
