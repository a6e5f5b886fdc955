/* census.c: reading the specialization state of code objects.
 *
 * Each specializable instruction site is in one of these states, read
 * from its opcode in the adaptive bytecode and from the backoff counter
 * in its first inline cache entry (docs/FORMAT.md, "Census"):
 *   specialized   - the opcode is one of the family's specialized forms;
 *   backing off   - base (3.12+) or *_ADAPTIVE (3.11) form whose backoff
 *                   exponent says that specialization failed: the number
 *                   of consecutive failed attempts is the exponent minus
 *                   its warm-up value (PC_WARMUP_BACKOFF);
 *   never tried   - base/adaptive form still at its warm-up exponent, or
 *                   (3.11) code not yet quickened.
 * Caches that are not specialization state (3.13: JUMP_BACKWARD's
 * optimizer counter, POP_JUMP_IF_*'s branch history) belong to opcodes
 * that are no site, and are only skipped over.
 *
 * Scope (census.h): mode census reads every family of code nothing
 * instruments.  Mode count on 3.12+ takes the census alongside segment
 * counting, whose events turn some instructions into INSTRUMENTED_X:
 * those keep X's inline caches but say nothing of X's state, so the
 * families they belong to (FOR_ITER; RESUME on 3.13) are left out
 * altogether, every site of theirs counted as excluded, never as
 * specialized or never tried.  Any other INSTRUMENTED_* opcode (LINE,
 * INSTRUCTION, CALL... of another tool) hides a code object entirely in
 * both scopes.
 */
#include "census.h"
#include "codeinfo.h"
#include "text.h"

#include <stdlib.h>

#include <string.h>

pc_census_tables pc_ct;
pc_census pc_census_live;
pc_census pc_census_dead;

/* The individually reported sites, as ready-made dump lines. */
static char *site_lines; /* PyMem_RawMalloc'd, or NULL */

/* Since the last dump or clear: a count window that takes the census
 * was open (count_census); the live census was taken, and in what scope
 * (taken, live_scope).  count_option is the census option of the last
 * count window: a clear while it is open starts a period of that window. */
static int count_census;
static int count_option = 1;
static int taken;
static pc_census_scope live_scope;
/* Why this period's census could not be taken (free text, FORMAT.md
 * 1.16), or "": the dump's meta.census.error. */
static char census_error[PC_META_MAX];

/* Module code objects seen executed ("exec" audit events): nothing else
 * holds them once they ran.  Kept for the process, at most
 * MAX_MODULE_CODES of them. */
#define MAX_MODULE_CODES 20000
static PyObject *module_codes; /* owned list, or NULL before setup */

/* A copy of a code object's bytecode is hidden by instrumentation. */
static int
copy_hidden(const uint16_t *units, Py_ssize_t n, pc_census_scope scope)
{
    Py_ssize_t i;
    /* A code object instrumented by some sys.monitoring tool hides its
     * opcodes behind INSTRUMENTED_*.  In scope count, the
     * instrumentation of segment counting's own events is expected: the
     * sites it hides are left out (PC_STATE_EXCLUDED). */
    for (i = 0; i < n; i++) {
        int op = units[i] & 0xff;
        int kind = pc_ct.kind[op];
        if (kind == PC_SITE_INSTRUMENTED ||
            (kind == PC_SITE_SEGMENT && scope != PC_CENSUS_COUNT))
            return 1;
        i += pc_ct.caches[op];
    }
    return 0;
}

int
pc_census_hidden(PyObject *code, pc_census_scope scope)
{
    PyCodeObject *co = (PyCodeObject *)code;
    Py_ssize_t n = pc_code_nunits(co), k, ncopies = pc_code_ncopies(co);
    for (k = 0; k < ncopies; k++) {
        const uint16_t *units = pc_code_copy(co, k);
        if (units != NULL && copy_hidden(units, n, scope))
            return 1;
    }
    return 0;
}

pc_site_state
pc_census_site_state(const uint16_t *units, Py_ssize_t n, Py_ssize_t i,
                     pc_census_scope scope, unsigned *fails)
{
    int op = units[i] & 0xff;
    int kind = pc_ct.kind[op];
    int fam = pc_ct.base[op];
    unsigned counter, backoff;

    if (kind == PC_SITE_NONE)
        return PC_STATE_NONE;
    /* Whatever its state (instrumented now, or deinstrumented and
     * warming up again after a window closed), counting held it back:
     * not read. */
    if (scope == PC_CENSUS_COUNT && pc_ct.excluded[fam])
        return PC_STATE_EXCLUDED;
    if (kind == PC_SITE_SEGMENT)
        return PC_STATE_NONE; /* INSTRUMENTED_RETURN_VALUE, _JUMP_*...  */
    if (kind == PC_SITE_SPECIALIZED)
        return PC_STATE_SPECIALIZED;
    if (kind == PC_SITE_PLAIN)
        return PC_STATE_PLAIN; /* no counter: neither tried nor failed */
    if (kind == PC_SITE_BASE && PC_UNQUICKENED_IS_BASE)
        return PC_STATE_NEVER_TRIED; /* 3.11: not quickened yet */
    if (pc_ct.caches[op] == 0 || i + 1 >= n)
        return PC_STATE_PLAIN;
    counter = units[i + 1];
    backoff = counter & 15;
    if (backoff <= PC_WARMUP_BACKOFF)
        return PC_STATE_NEVER_TRIED;
#if PC_CODE_TLBC
    if (backoff == PC_UNREACHABLE_BACKOFF)
        return PC_STATE_NEVER_TRIED; /* PYTHON_TLBC=0: never attempted */
#endif
    *fails = backoff - PC_WARMUP_BACKOFF;
    return PC_STATE_BACKING_OFF;
}

/* How advanced a state is, for merging copies (census.h); -1: not a
 * state a copy can add to copy 0's. */
static int
state_rank(pc_site_state st)
{
    switch (st) {
    case PC_STATE_PLAIN:
        return 0;
    case PC_STATE_NEVER_TRIED:
        return 1;
    case PC_STATE_BACKING_OFF:
        return 2;
    case PC_STATE_SPECIALIZED:
        return 3;
    default:
        return -1;
    }
}

static void
read_copy(const uint16_t *units, Py_ssize_t n, Py_ssize_t i,
          pc_census_scope scope, pc_site_read *r)
{
    r->fails = 0;
    r->state = pc_census_site_state(units, n, i, scope, &r->fails);
    r->op = units[i] & 0xff;
    r->counter = r->state == PC_STATE_BACKING_OFF ? units[i + 1] : 0;
}

void
pc_census_read_site(PyCodeObject *co, Py_ssize_t n, Py_ssize_t i,
                    pc_census_scope scope, pc_site_read *r)
{
    Py_ssize_t k, ncopies;
    int fam;
    read_copy(pc_code_copy(co, 0), n, i, scope, r);
    if (state_rank(r->state) < 0 || r->state == PC_STATE_SPECIALIZED)
        return; /* no site, excluded, or the most advanced already */
    fam = pc_ct.base[r->op];
    ncopies = pc_code_ncopies(co);
    for (k = 1; k < ncopies; k++) {
        const uint16_t *units = pc_code_copy(co, k);
        pc_site_read c;
        if (units == NULL)
            continue;
        read_copy(units, n, i, scope, &c);
        /* Only a form of copy 0's family is the same instruction (a
         * copy read while CPython still writes it may hold anything). */
        if (pc_ct.base[c.op] == fam &&
            state_rank(c.state) > state_rank(r->state)) {
            *r = c;
            if (c.state == PC_STATE_SPECIALIZED)
                return;
        }
    }
}

static int
append_site(PyObject *sites, Py_ssize_t i, int fam, unsigned fails,
            unsigned counter)
{
    PyObject *t =
        Py_BuildValue("(nsII)", i * 2, pc_ct.name[fam], fails, counter >> 4);
    if (t == NULL || PyList_Append(sites, t) < 0) {
        Py_XDECREF(t);
        return -1;
    }
    Py_DECREF(t);
    return 0;
}

int
pc_census_code(PyObject *code, pc_census *acc, PyObject *sites,
               pc_census_scope scope)
{
    PyCodeObject *co;
    const uint16_t *units;
    Py_ssize_t n, i;

    if (!pc_ct.ready || !PyCode_Check(code))
        return 0;
    if (pc_census_hidden(code, scope)) {
        acc->instrumented_code_objects++;
        return 0;
    }
    co = (PyCodeObject *)code;
    units = pc_code_units(co);
    n = pc_code_nunits(co);
    acc->code_objects++;
    for (i = 0; i < n; i++) {
        int op = units[i] & 0xff;
        int fam = pc_ct.base[op];
        pc_site_read r;
        pc_census_read_site(co, n, i, scope, &r);
        if (r.state == PC_STATE_EXCLUDED)
            acc->excluded[fam]++;
        else if (r.state != PC_STATE_NONE)
            acc->sites[fam]++;
        if (r.state == PC_STATE_SPECIALIZED) {
            acc->specialized[fam]++;
            acc->forms[r.op]++;
        }
        else if (r.state == PC_STATE_NEVER_TRIED) {
            acc->never_tried[fam]++;
        }
        else if (r.state == PC_STATE_BACKING_OFF) {
            acc->backing_off[fam]++;
            acc->failures[fam] += r.fails;
            if (sites != NULL &&
                append_site(sites, i, fam, r.fails, r.counter) < 0)
                return -1;
        }
        i += pc_ct.caches[op];
    }
    return 0;
}

static int
census_empty(const pc_census *c)
{
    return c->code_objects == 0 && c->instrumented_code_objects == 0;
}

/* Only a census that was taken is written: a dump with none (SIGTERM,
 * or no Python code could run) does not pass off the code objects that
 * died meanwhile as a census. */
int
pc_census_has_data(void)
{
    return taken &&
           (!census_empty(&pc_census_live) || !census_empty(&pc_census_dead));
}

static Py_ssize_t code_extra_index = -1;

void
pc_census_init(Py_ssize_t extra_index)
{
    code_extra_index = extra_index;
}

pc_hot *
pc_census_hot_of(PyObject *code)
{
    void *extra = NULL;
    if (code_extra_index < 0 ||
        pc_code_get_extra(code, code_extra_index, &extra) != 0 ||
        extra == NULL) {
        PyErr_Clear();
        return NULL;
    }
    return ((pc_codeinfo *)extra)->hot;
}

/* Scope count reads a code object only if some instruction of it was
 * counted in this period (docs/FORMAT.md 1.10): a per code record is not
 * enough, segment counting has one for every frame it read, the frames
 * that enclose a window (measure()'s or on()'s callers) among them. */
int
pc_census_ran(PyObject *code)
{
    return pc_hot_ran(pc_census_hot_of(code));
}

void
pc_census_count_dead(PyObject *code, const pc_hot *h)
{
    if (pc_ct.ready && !taken && pc_census_period_scope() == PC_CENSUS_COUNT &&
        pc_hot_ran(h))
        pc_census_code(code, &pc_census_dead, NULL, PC_CENSUS_COUNT);
}

int
pc_census_taken(void)
{
    return taken;
}

void
pc_census_clear(void)
{
    memset(&pc_census_live, 0, sizeof pc_census_live);
    memset(&pc_census_dead, 0, sizeof pc_census_dead);
    PyMem_RawFree(site_lines);
    site_lines = NULL;
    taken = 0;
    census_error[0] = '\0';
    live_scope = PC_CENSUS_NONE;
    /* The next period takes one if the count window open now does. */
    count_census = PC_HAVE_MONITORING && pc_g.on &&
                   pc_g.mode == PC_MODE_COUNT && count_option;
}

void
pc_census_count_window(int census)
{
    count_option = census;
    if (census)
        count_census = 1;
}

int
pc_census_count_option(void)
{
    return count_option;
}

/* A count window's census wins over a census window's in the same
 * period: the code its events instrumented can only be read in scope
 * count. */
pc_census_scope
pc_census_period_scope(void)
{
    if (count_census)
        return PC_CENSUS_COUNT;
    if (pc_g.census_wanted)
        return PC_CENSUS_CENSUS;
    return PC_CENSUS_NONE;
}

static const char *
scope_name(pc_census_scope scope)
{
    switch (scope) {
    case PC_CENSUS_CENSUS:
        return "census";
    case PC_CENSUS_COUNT:
        return "count";
    default:
        return NULL;
    }
}

const char *
pc_census_scope_name(void)
{
    return pc_census_has_data() ? scope_name(live_scope) : NULL;
}

static void
put_family(psf_out *o, const char *fam, const char *what, const char *form,
           uint64_t v)
{
    psf_put(o, PSF_KEY_CENSUS_FAMILY);
    psf_put(o, fam);
    psf_put(o, PSF_KEY_FIELD);
    psf_put(o, what);
    if (form) {
        psf_put(o, "[");
        psf_put(o, form);
        psf_put(o, "]");
    }
    psf_put_value(o, v);
}

/* Live and dead code objects together: the state of every site the
 * process had, as far as the census could reach it. */
void
pc_census_write(psf_out *o)
{
    const pc_census *a = &pc_census_live, *d = &pc_census_dead;
    int count_scope = live_scope == PC_CENSUS_COUNT;
    int f, op;

    psf_put_counter(o, PSF_KEY_CENSUS_CODE, a->code_objects);
    psf_put_counter(o, PSF_KEY_CENSUS_DEAD, d->code_objects);
    psf_put_counter(o, PSF_KEY_CENSUS_INSTRUMENTED,
                    a->instrumented_code_objects +
                        d->instrumented_code_objects);
    /* Scope count: every family left out, with its sites, 0 included, so
     * that the dump says which were left out even where none was seen.
     * Sites of those families read in scope census earlier in the same
     * period (a census window, then a count window) are left out too. */
    for (f = 0; count_scope && f < PC_NOPS; f++) {
        if (!pc_ct.excluded[f])
            continue;
        psf_put(o, PSF_KEY_CENSUS_EXCLUDED);
        psf_put(o, pc_ct.name[f]);
        psf_put(o, "]");
        psf_put_value(o, a->excluded[f] + d->excluded[f] + a->sites[f] +
                             d->sites[f]);
    }
    for (f = 0; f < PC_NOPS; f++) {
        uint64_t sites = a->sites[f] + d->sites[f];
        const char *fam = pc_ct.name[f];
        if (!sites || (count_scope && pc_ct.excluded[f]))
            continue;
        put_family(o, fam, "sites", NULL, sites);
        put_family(o, fam, "specialized", NULL,
                   a->specialized[f] + d->specialized[f]);
        for (op = 0; op < PC_NOPS; op++)
            if (pc_ct.base[op] == f && (a->forms[op] + d->forms[op]))
                put_family(o, fam, "specialized", pc_ct.name[op],
                           a->forms[op] + d->forms[op]);
        put_family(o, fam, "backing_off", NULL,
                   a->backing_off[f] + d->backing_off[f]);
        put_family(o, fam, "failed_attempts", NULL,
                   a->failures[f] + d->failures[f]);
        put_family(o, fam, "never_tried", NULL,
                   a->never_tried[f] + d->never_tried[f]);
    }
    if (site_lines)
        psf_put(o, site_lines);
}

/* ---- the registry of live code objects (3.12+) ----
 *
 * Every live code object, borrowed: seeded once when the census is set
 * up (_census_seed: the code objects a walk reaches then), then kept by
 * the code watcher (CREATE adds, DESTROY removes before the object
 * goes).  The census reads it instead of walking the heap at every
 * dump.  An open-addressing set of pointers; a failed allocation turns
 * it off for good (reg_failed), and the census walks the heap again. */
#define REG_TOMB ((PyObject *)1)
static PyObject **reg;
static size_t reg_cap, reg_used, reg_live; /* used: live + tombstones */
static int reg_on, reg_failed;

static size_t
reg_hash(PyObject *p, size_t cap)
{
    return (size_t)(((uintptr_t)p >> 4) * 11400714819323198485ull) & (cap - 1);
}

static int
reg_grow(void)
{
    size_t cap = 1024, i;
    PyObject **t;
    while (cap < 4 * (reg_live + 1))
        cap *= 2;
    t = calloc(cap, sizeof *t);
    if (t == NULL)
        return -1;
    for (i = 0; i < reg_cap; i++) {
        size_t h;
        if (reg[i] == NULL || reg[i] == REG_TOMB)
            continue;
        for (h = reg_hash(reg[i], cap); t[h] != NULL; h = (h + 1) & (cap - 1))
            ;
        t[h] = reg[i];
    }
    free(reg);
    reg = t;
    reg_cap = cap;
    reg_used = reg_live;
    return 0;
}

static void
reg_add(PyObject *co)
{
    size_t h, tomb = (size_t)-1;
    if (!reg_on || reg_failed)
        return;
    if (4 * (reg_used + 1) > 3 * reg_cap && reg_grow() < 0) {
        reg_failed = 1;
        return;
    }
    for (h = reg_hash(co, reg_cap); reg[h] != NULL;
         h = (h + 1) & (reg_cap - 1)) {
        if (reg[h] == co)
            return;
        if (reg[h] == REG_TOMB && tomb == (size_t)-1)
            tomb = h;
    }
    if (tomb != (size_t)-1) {
        reg[tomb] = co;
    }
    else {
        reg[h] = co;
        reg_used++;
    }
    reg_live++;
}

#if PC_HAVE_CODE_WATCHER
static void
reg_del(PyObject *co)
{
    size_t h;
    if (reg_cap == 0)
        return;
    for (h = reg_hash(co, reg_cap); reg[h] != NULL;
         h = (h + 1) & (reg_cap - 1)) {
        if (reg[h] == co) {
            reg[h] = REG_TOMB;
            reg_live--;
            return;
        }
    }
}
#endif

/* co and the code objects in its co_consts, recursively: code compiled
 * before the registry started, run (exec) after. */
static void
reg_add_tree(PyObject *co, int depth)
{
    PyObject *consts = ((PyCodeObject *)co)->co_consts;
    Py_ssize_t j;
    if (!reg_on || depth > 100)
        return;
    reg_add(co);
    for (j = 0; consts && j < PyTuple_GET_SIZE(consts); j++) {
        PyObject *c = PyTuple_GET_ITEM(consts, j);
        if (PyCode_Check(c))
            reg_add_tree(c, depth + 1);
    }
}

#if PC_HAVE_CODE_WATCHER
static int watcher_id = -1;

/* A code object about to die: its sites join the census (sites of
 * code that ran and is gone would otherwise never be seen), unless the
 * live census of the period was taken already, which read it (the exit
 * census, then the interpreter's finalization).  Scope
 * count takes it later, when its per code record goes
 * (pc_census_count_dead), if it ran: its segment counts are not in the
 * record yet here. */
static int
on_code_event(PyCodeEvent event, PyCodeObject *co)
{
    pc_lock(); /* code is made and dies in any thread (free-threaded) */
    if (event == PY_CODE_EVENT_CREATE)
        reg_add((PyObject *)co);
    if (event == PY_CODE_EVENT_DESTROY) {
        reg_del((PyObject *)co);
        if (!taken && pc_census_period_scope() == PC_CENSUS_CENSUS)
            pc_census_code((PyObject *)co, &pc_census_dead, NULL,
                           PC_CENSUS_CENSUS);
    }
    pc_unlock();
    return 0;
}

int
pc_census_watch(void)
{
    if (watcher_id >= 0)
        return 0;
    watcher_id = PyCode_AddWatcher(on_code_event);
    return watcher_id < 0 ? -1 : 0;
}
#else
int
pc_census_watch(void)
{
    return 0;
}
#endif

/* "exec" audit events: a C hook, because a Python one would run (and,
 * in a count window, be counted) at every audited operation of the
 * program.  Never fails the audited operation. */
static int
audit_hook(const char *event, PyObject *args, void *data)
{
    PyObject *co;
    (void)data;
    if (module_codes == NULL || strcmp(event, "exec") != 0)
        return 0;
    /* The hook is process-wide; the list belongs to the main interpreter. */
    if (PyInterpreterState_Get() != PyInterpreterState_Main())
        return 0;
    if (!PyTuple_Check(args) || PyTuple_GET_SIZE(args) < 1)
        return 0;
    co = PyTuple_GET_ITEM(args, 0);
    if (!PyCode_Check(co))
        return 0;
    pc_lock();
    reg_add_tree(co, 0);
    pc_unlock();
    if (PyList_GET_SIZE(module_codes) >= MAX_MODULE_CODES)
        return 0;
    if (PyList_Append(module_codes, co) < 0)
        PyErr_Clear(); /* a census short of one module, no more */
    return 0;
}

static int
install_audit_hook(void)
{
    if (module_codes != NULL)
        return 0;
    module_codes = PyList_New(0);
    if (module_codes == NULL)
        return -1;
    if (PySys_AddAuditHook(audit_hook, NULL) < 0) {
        Py_CLEAR(module_codes);
        return -1;
    }
    return 0;
}

/* pystats._census, imported once, when the census is set up: a census
 * at exit must not depend on the import system the program may have
 * broken by then (builtins.__import__ replaced, sys.path emptied). */
static PyObject *census_mod; /* owned, or NULL before setup */

const char *
pc_census_error(void)
{
    return census_error[0] ? census_error : NULL;
}

/* The pending exception (the census failed): kept as the period's
 * census error, said on stderr, and cleared. */
static void
census_failed(void)
{
    pc_exc failure = pc_exc_save();
    PyObject *exc = pc_exc_object(&failure); /* borrowed */
    PyObject *text = NULL;                   /* owned */
    int cut;
    if (exc != NULL) {
        /* "TYPE: MESSAGE", or the type alone for an exception without
         * a message (a MemoryError): never "MemoryError: ". */
        const char *name = Py_TYPE(exc)->tp_name;
        PyObject *msg = PyObject_Str(exc);
        if (msg != NULL && PyUnicode_Check(msg) &&
            PyUnicode_GetLength(msg) > 0)
            text = PyUnicode_FromFormat("%s: %U", name, msg);
        else {
            PyErr_Clear();
            text = PyUnicode_FromString(name);
        }
        Py_XDECREF(msg);
    }
    if (text == NULL ||
        pc_text_encode(text, census_error, sizeof census_error, &cut) < 0)
        psf_strlcpy(census_error, "an error that could not be described",
                    sizeof census_error);
    PyErr_Clear();
    if (text != NULL) {
        const char *u = PyUnicode_AsUTF8(text);
        PySys_FormatStderr("pystats: the specialization census could not be "
                           "taken (%s): the dump has none and says why "
                           "(meta.census.error)\n",
                           u != NULL ? u : census_error);
        PyErr_Clear();
    }
    Py_XDECREF(text);
    pc_exc_drop(failure);
}

/* The walk over live code objects is Python (python/pystats/_census.py):
 * it needs gc, frames and the source of failing sites.  It calls back
 * into pc_census_code() for each code object.
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
    PyThreadState *ts = PyThreadState_Get();
    int r;
    /* The hook's sys.addaudithook event reaches the program's own hooks:
     * not counted either. */
    PyThreadState_EnterTracing(ts);
    r = install_audit_hook();
    PyThreadState_LeaveTracing(ts);
    if (r < 0 || pc_census_watch() < 0)
        return -1;
    return call_census("setup");
}

int
pc_census_take(void)
{
    pc_census_scope scope = pc_census_period_scope();
    if (scope == PC_CENSUS_NONE || !pc_ct.ready)
        return 0;
    live_scope = scope;
    if (call_census("take") == 0) {
        census_error[0] = '\0';
        return 0;
    }
    /* The census is left out, and the dump says why; a count window is
     * for its counts, which are dumped.  In mode census the caller
     * (dump()) raises. */
    memset(&pc_census_live, 0, sizeof pc_census_live);
    taken = 0;
    if (scope == PC_CENSUS_COUNT) {
        census_failed();
        return 0;
    }
    {
        /* Kept for the dump, raised again for the caller. */
        pc_exc failure = pc_exc_save();
        pc_exc_restore(pc_exc_ref(failure));
        census_failed();
        pc_exc_restore(failure);
    }
    return -1;
}

/* ---- the private API the Python walk uses ---- */

static int
copy_table(PyObject *b, uint8_t *dst)
{
    if (!PyBytes_Check(b) || PyBytes_GET_SIZE(b) != PC_NOPS) {
        PyErr_SetString(PyExc_ValueError, "census table must be 256 bytes");
        return -1;
    }
    memcpy(dst, PyBytes_AS_STRING(b), PC_NOPS);
    return 0;
}

static PyObject *
census_setup_fn(PyObject *self, PyObject *args)
{
    PyObject *names, *kind, *base, *caches;
    Py_ssize_t i;
    (void)self;
    if (!PyArg_ParseTuple(args, "O!SSS:_census_tables", &PyList_Type, &names,
                          &kind, &base, &caches))
        return NULL;
    if (PyList_GET_SIZE(names) != PC_NOPS) {
        PyErr_SetString(PyExc_ValueError, "need 256 opcode names");
        return NULL;
    }
    if (copy_table(kind, pc_ct.kind) < 0 || copy_table(base, pc_ct.base) < 0 ||
        copy_table(caches, pc_ct.caches) < 0)
        return NULL;
    for (i = 0; i < PC_NOPS; i++) {
        const char *s = PyUnicode_AsUTF8(PyList_GET_ITEM(names, i));
        if (s == NULL)
            return NULL;
        psf_strlcpy(pc_ct.name[i], s, PC_OPNAME_MAX);
    }
    /* The families scope count leaves out: those of a site kind that
     * segment counting instruments (INSTRUMENTED_FOR_ITER -> FOR_ITER). */
    memset(pc_ct.excluded, 0, sizeof pc_ct.excluded);
    for (i = 0; i < PC_NOPS; i++) {
        int fam = pc_ct.base[i];
        if (pc_ct.kind[i] == PC_SITE_SEGMENT &&
            (pc_ct.kind[fam] == PC_SITE_BASE ||
             pc_ct.kind[fam] == PC_SITE_PLAIN))
            pc_ct.excluded[fam] = 1;
    }
    pc_ct.ready = 1;
    Py_RETURN_NONE;
}

/* _census_begin(scope=None): start the live census afresh, read in
 * scope "census" or "count" (None: the period's, else "census"). */
static PyObject *
census_begin_fn(PyObject *self, PyObject *args)
{
    const char *name = NULL;
    pc_census_scope scope;
    (void)self;
    if (!PyArg_ParseTuple(args, "|z:_census_begin", &name))
        return NULL;
    if (name == NULL) {
        scope = pc_census_period_scope();
        if (scope == PC_CENSUS_NONE)
            scope = PC_CENSUS_CENSUS;
    }
    else if (strcmp(name, "census") == 0) {
        scope = PC_CENSUS_CENSUS;
    }
    else if (strcmp(name, "count") == 0) {
        scope = PC_CENSUS_COUNT;
    }
    else {
        PyErr_Format(PyExc_ValueError, "unknown census scope %s", name);
        return NULL;
    }
    live_scope = scope;
    taken = 0;
    memset(&pc_census_live, 0, sizeof pc_census_live);
    PyMem_RawFree(site_lines);
    site_lines = NULL;
    Py_RETURN_NONE;
}

static PyObject *
census_code_fn(PyObject *self, PyObject *args)
{
    PyObject *code, *sites = Py_None;
    (void)self;
    if (!PyArg_ParseTuple(args, "O!|O:_census_code", &PyCode_Type, &code,
                          &sites))
        return NULL;
    if (sites != Py_None && !PyList_Check(sites)) {
        PyErr_SetString(PyExc_TypeError, "sites must be a list or None");
        return NULL;
    }
    if (pc_census_code(code, &pc_census_live, sites == Py_None ? NULL : sites,
                       live_scope) < 0)
        return NULL;
    Py_RETURN_NONE;
}

/* census.site[I] : F | ATTEMPTS | COUNTER | FILE | LINE | QUALNAME | SOURCE
 * (docs/FORMAT.md 1.10), the free text in the dump's encoding (text.h).
 * rows: a list of (family, attempts, counter, file, line, qualname,
 * source), already ordered; returns the lines as one str. */
static PyObject *
site_text(PyObject *rows)
{
    PyObject *parts = NULL, *sep = NULL, *result = NULL; /* owned */
    Py_ssize_t i, j;

    parts = PyList_New(0);
    if (parts == NULL)
        goto done;
    for (i = 0; i < PyList_GET_SIZE(rows); i++) {
        PyObject *row = PyList_GET_ITEM(rows, i); /* borrowed */
        PyObject *f[7] = {NULL}, *line = NULL;    /* owned */
        int err = -1;
        if (!PyTuple_Check(row) || PyTuple_GET_SIZE(row) != 7) {
            PyErr_SetString(PyExc_TypeError, "census site rows are 7-tuples");
            goto done;
        }
        for (j = 0; j < 7; j++) {
            PyObject *v = PyTuple_GET_ITEM(row, j); /* borrowed */
            f[j] = PyLong_Check(v) ? PyObject_Str(v) : pc_text_encode_str(v);
            if (f[j] == NULL)
                goto row_done;
        }
        line = PyUnicode_FromFormat(
            PSF_KEY_CENSUS_SITE "%zd] : %U | %U | %U | %U | %U | %U | %U\n", i,
            f[0], f[1], f[2], f[3], f[4], f[5], f[6]);
        if (line != NULL)
            err = PyList_Append(parts, line);
row_done:
        for (j = 0; j < 7; j++)
            Py_XDECREF(f[j]);
        Py_XDECREF(line);
        if (err < 0)
            goto done;
    }
    sep = PyUnicode_FromString("");
    if (sep != NULL)
        result = PyUnicode_Join(sep, parts);
done:
    Py_XDECREF(parts);
    Py_XDECREF(sep);
    return result;
}

static PyObject *
census_sites_fn(PyObject *self, PyObject *arg)
{
    PyObject *text; /* owned */
    const char *s;
    Py_ssize_t n;
    char *copy;
    (void)self;
    if (!PyList_Check(arg)) {
        PyErr_SetString(PyExc_TypeError, "_census_sites takes a list of rows");
        return NULL;
    }
    text = site_text(arg);
    if (text == NULL)
        return NULL;
    s = PyUnicode_AsUTF8AndSize(text, &n);
    copy = s ? PyMem_RawMalloc((size_t)n + 1) : NULL;
    if (copy == NULL) {
        Py_DECREF(text);
        return s ? PyErr_NoMemory() : NULL;
    }
    memcpy(copy, s, (size_t)n + 1);
    Py_DECREF(text);
    PyMem_RawFree(site_lines);
    site_lines = copy;
    taken = 1; /* the walk's last step: the census is whole */
    Py_RETURN_NONE;
}

/* The live tally as a dict, for tests and tools:
 * {"scope": "census"|"count", "code_objects": n, ...,
 *  "families": {family: {"sites": n, ...}},
 *  "excluded": {family: sites} (scope count: every family left out)}. */
static PyObject *
census_totals_fn(PyObject *self, PyObject *unused)
{
    const pc_census *a = &pc_census_live;
    PyObject *fams = NULL, *excl = NULL, *result = NULL; /* owned */
    int f, op;
    (void)self;
    (void)unused;
    fams = PyDict_New();
    excl = PyDict_New();
    if (fams == NULL || excl == NULL)
        goto done;
    for (f = 0; live_scope == PC_CENSUS_COUNT && f < PC_NOPS; f++) {
        PyObject *v;
        int err;
        if (!pc_ct.excluded[f])
            continue;
        v = PyLong_FromUnsignedLongLong(a->excluded[f]);
        if (v == NULL)
            goto done;
        err = PyDict_SetItemString(excl, pc_ct.name[f], v);
        Py_DECREF(v);
        if (err < 0)
            goto done;
    }
    for (f = 0; f < PC_NOPS; f++) {
        PyObject *forms, *d;
        int err;
        if (!a->sites[f])
            continue;
        forms = PyDict_New();
        if (forms == NULL)
            goto done;
        for (op = 0; op < PC_NOPS; op++) {
            if (pc_ct.base[op] == f && a->forms[op]) {
                PyObject *v = PyLong_FromUnsignedLongLong(a->forms[op]);
                if (v == NULL ||
                    PyDict_SetItemString(forms, pc_ct.name[op], v) < 0) {
                    Py_XDECREF(v);
                    Py_DECREF(forms);
                    goto done;
                }
                Py_DECREF(v);
            }
        }
        d = Py_BuildValue(
            "{sKsKsKsKsKsN}", "sites", (unsigned long long)a->sites[f],
            "specialized", (unsigned long long)a->specialized[f],
            "backing_off", (unsigned long long)a->backing_off[f],
            "failed_attempts", (unsigned long long)a->failures[f],
            "never_tried", (unsigned long long)a->never_tried[f], "forms",
            forms);
        if (d == NULL)
            goto done;
        err = PyDict_SetItemString(fams, pc_ct.name[f], d);
        Py_DECREF(d);
        if (err < 0)
            goto done;
    }
    result = Py_BuildValue("{sssKsKsOsO}", "scope",
                           scope_name(live_scope) ? scope_name(live_scope)
                                                  : "census",
                           "code_objects", (unsigned long long)a->code_objects,
                           "instrumented_code_objects",
                           (unsigned long long)a->instrumented_code_objects,
                           "families", fams, "excluded", excl);
done:
    Py_XDECREF(fams);
    Py_XDECREF(excl);
    return result;
}

/* Take the census now if the period wants one (atexit calls this: a C
 * function, so that a count window sees no Python call). */
static PyObject *
census_take_fn(PyObject *self, PyObject *unused)
{
    (void)self;
    (void)unused;
    /* At exit: the failure is said (census_failed) and in the dump; an
     * exception here would only add a bare traceback. */
    if (pc_census_take() < 0)
        PyErr_Clear();
    Py_RETURN_NONE;
}

static int
gather_add(PyObject *seen, PyObject *out, PyObject *co)
{
    PyObject *key = PyLong_FromVoidPtr(co); /* owned */
    int r;
    if (key == NULL)
        return -1;
    r = PySet_Contains(seen, key);
    if (r == 0)
        r = PySet_Add(seen, key) < 0 || PyList_Append(out, co) < 0 ? -1 : 0;
    Py_DECREF(key);
    return r < 0 ? -1 : 0;
}

/* _census_gather(objects): the distinct code objects that the objects
 * are or hold (a function's, generator's, coroutine's or async
 * generator's code), and recursively those in their co_consts.  In C:
 * it looks at every object gc.get_objects() returns, several times
 * faster than the same loop in Python. */
static PyObject *
census_gather_fn(PyObject *self, PyObject *objs)
{
    PyObject *seen = NULL, *out = NULL; /* owned */
    Py_ssize_t i;
    (void)self;
    if (!PyList_Check(objs)) {
        PyErr_SetString(PyExc_TypeError, "_census_gather needs a list");
        return NULL;
    }
    seen = PySet_New(NULL);
    out = PyList_New(0);
    if (seen == NULL || out == NULL)
        goto error;
    for (i = 0; i < PyList_GET_SIZE(objs); i++) {
        PyObject *o = PyList_GET_ITEM(objs, i), *co; /* co owned */
        int r;
        if (PyFunction_Check(o))
            co = Py_NewRef(PyFunction_GET_CODE(o));
        else if (PyCode_Check(o))
            co = Py_NewRef(o);
        else if (PyGen_CheckExact(o))
            co = PyObject_GetAttrString(o, "gi_code");
        else if (PyCoro_CheckExact(o))
            co = PyObject_GetAttrString(o, "cr_code");
        else if (PyAsyncGen_CheckExact(o))
            co = PyObject_GetAttrString(o, "ag_code");
        else
            continue;
        if (co == NULL)
            goto error;
        r = PyCode_Check(co) ? gather_add(seen, out, co) : 0;
        Py_DECREF(co);
        if (r < 0)
            goto error;
    }
    /* out grows while it is walked: every code found has its co_consts
     * looked at once. */
    for (i = 0; i < PyList_GET_SIZE(out); i++) {
        PyObject *consts =
            ((PyCodeObject *)PyList_GET_ITEM(out, i))->co_consts;
        Py_ssize_t j;
        for (j = 0; consts && j < PyTuple_GET_SIZE(consts); j++) {
            PyObject *c = PyTuple_GET_ITEM(consts, j);
            if (PyCode_Check(c) && gather_add(seen, out, c) < 0)
                goto error;
        }
    }
    Py_DECREF(seen);
    return out;
error:
    Py_XDECREF(seen);
    Py_XDECREF(out);
    return NULL;
}

/* _census_seed(codes): start the registry with these code objects (the
 * ones a walk reaches when the census is set up); from now on the code
 * watcher keeps it.  False where there is no code watcher (3.11). */
static PyObject *
census_seed_fn(PyObject *self, PyObject *list)
{
    Py_ssize_t i;
    (void)self;
    if (!PyList_Check(list)) {
        PyErr_SetString(PyExc_TypeError, "_census_seed needs a list");
        return NULL;
    }
    if (!PC_HAVE_CODE_WATCHER)
        Py_RETURN_FALSE;
    pc_lock();
    reg_on = 1;
    for (i = 0; i < PyList_GET_SIZE(list); i++)
        if (PyCode_Check(PyList_GET_ITEM(list, i)))
            reg_add(PyList_GET_ITEM(list, i));
    pc_unlock();
    return PyBool_FromLong(!reg_failed);
}

/* _census_registry(ran=False): the live code objects, as a new list; with
 * ran, only those the collector has a per code record of (they ran while
 * counting).  None if there is no registry: the census walks the heap. */
static PyObject *
census_registry_fn(PyObject *self, PyObject *args)
{
    int ran = 0;
    size_t i;
    PyObject *out;
    (void)self;
    if (!PyArg_ParseTuple(args, "|p:_census_registry", &ran))
        return NULL;
    /* Without the GIL another thread may be destroying a code object the
     * registry still holds (its watcher waits for the lock): taking a
     * reference to it then would resurrect it.  The heap walk
     * (gc.get_objects(), which stops the world) is safe there. */
    if (!reg_on || reg_failed || pc_gil_off())
        Py_RETURN_NONE;
    out = PyList_New(0);
    for (i = 0; out != NULL && i < reg_cap; i++) {
        PyObject *co = reg[i];
        if (co == NULL || co == REG_TOMB || (ran && !pc_census_ran(co)))
            continue;
        if (PyList_Append(out, co) < 0)
            Py_CLEAR(out);
    }
    return out;
}

static PyObject *
census_ran_fn(PyObject *self, PyObject *code)
{
    (void)self;
    return PyBool_FromLong(PyCode_Check(code) && pc_census_ran(code));
}

/* The module code objects the audit hook saw, as a new list. */
static PyObject *
census_module_codes_fn(PyObject *self, PyObject *unused)
{
    (void)self;
    (void)unused;
    if (module_codes == NULL)
        return PyList_New(0);
    return PyList_GetSlice(module_codes, 0, PyList_GET_SIZE(module_codes));
}

PyMethodDef pc_census_methods[] = {
    {"_census_tables", census_setup_fn, METH_VARARGS, NULL},
    {"_census_begin", census_begin_fn, METH_VARARGS, NULL},
    {"_census_code", census_code_fn, METH_VARARGS, NULL},
    {"_census_sites", census_sites_fn, METH_O, NULL},
    {"_census_totals", census_totals_fn, METH_NOARGS, NULL},
    {"_census_take", census_take_fn, METH_NOARGS, NULL},
    {"_census_module_codes", census_module_codes_fn, METH_NOARGS, NULL},
    {"_census_gather", census_gather_fn, METH_O, NULL},
    {"_census_seed", census_seed_fn, METH_O, NULL},
    {"_census_ran", census_ran_fn, METH_O, NULL},
    {"_census_registry", census_registry_fn, METH_VARARGS, NULL},
    {NULL, NULL, 0, NULL},
};
