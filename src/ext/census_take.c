/* census_take.c: taking the census: the setup and the walk over live
 * code objects, which is Python (python/pystats/_census.py), driven from
 * C with this thread's events suspended.
 */
#include "census.h"

/* pystats._census, imported once, when the census is set up: a census
 * at exit must not depend on the import system the program may have
 * broken by then (builtins.__import__ replaced, sys.path emptied). */
static PyObject *census_mod; /* owned, or NULL before setup */

/* The walk over live code objects is Python (python/pystats/_census.py):
 * it needs gc, frames and the source of failing sites.  It calls back
 * into the census (census.c) for each code object.
 *
 * It runs with this thread's monitoring events and trace function
 * suspended (PyThreadState_EnterTracing): in a count window (or a
 * measure() that calls dump()) none of its instructions are counted and
 * the thread's segment state is not disturbed: to the counts the walk
 * is one C call.  Other threads go on being counted. */
static int
call_census(const char *fn)
{
    PyThreadState *ts = PyThreadState_Get();
    PyObject *mod, *r = NULL; /* mod borrowed, r owned */
    PyThreadState_EnterTracing(ts);
    if (census_mod == NULL)
        census_mod = PyImport_ImportModule("pystats._census");
    mod = census_mod;
    if (mod != NULL)
        r = PyObject_CallMethod(mod, fn, NULL);
    PyThreadState_LeaveTracing(ts);
    if (r == NULL)
        return -1;
    Py_DECREF(r);
    return 0;
}

int
pc_census_setup(void)
{
    if (pc_census_hooks() < 0)
        return -1;
    return call_census("setup");
}

/* One walk at a time: a dump() of another thread that comes while a
 * walk lets Python run takes none (it shares the walk's tally); its
 * clear then makes the walk overtaken (census.c), so neither dump
 * writes a census of that period.  Counts are not touched. */
static int walking;

int
pc_census_take(void)
{
    pc_census_scope scope = pc_census_period_scope();
    int r;
    if (scope == PC_CENSUS_NONE || !pc_ct.ready || walking)
        return 0;
    pc_census_taking(scope);
    walking = 1;
    r = call_census("take");
    walking = 0;
    if (r == 0) {
        pc_census_took(1);
        return 0;
    }
    /* The census is left out, and the dump says why; a count window is
     * for its counts, which are dumped.  In mode census the caller
     * (dump()) raises. */
    pc_census_took(0);
    if (scope == PC_CENSUS_COUNT) {
        pc_census_failed();
        return 0;
    }
    {
        /* Kept for the dump, raised again for the caller. */
        pc_exc failure = pc_exc_save();
        pc_exc_restore(pc_exc_ref(failure));
        pc_census_failed();
        pc_exc_restore(failure);
    }
    return -1;
}

/* Take the census now if the period wants one (atexit calls this: a C
 * function, so that a count window sees no Python call). */
static PyObject *
census_take_fn(PyObject *self, PyObject *unused)
{
    (void)self;
    (void)unused;
    /* At exit: the failure is said (pc_census_failed) and in the dump; an
     * exception here would only add a bare traceback. */
    if (pc_census_take() < 0)
        PyErr_Clear();
    Py_RETURN_NONE;
}

PyMethodDef pc_census_take_methods[] = {
    {"_census_take", census_take_fn, METH_NOARGS, NULL},
    {NULL, NULL, 0, NULL},
};
