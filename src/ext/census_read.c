/* census_read.c: reading one code object's specializable sites from its
 * adaptive bytecode, every copy of it (3.14t), and tallying them.
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
 * Scope (census_read.h): mode census reads every family of code nothing
 * instruments.  Mode count on 3.12+ takes the census alongside segment
 * counting, whose events turn some instructions into INSTRUMENTED_X:
 * those keep X's inline caches but say nothing of X's state, so the
 * families they belong to (FOR_ITER; RESUME on 3.13) are left out
 * altogether, every site of theirs counted as excluded, never as
 * specialized or never tried.  Any other INSTRUMENTED_* opcode (LINE,
 * INSTRUCTION, CALL... of another tool) hides a code object entirely in
 * both scopes.
 */
#include "census_read.h"

pc_census_tables pc_ct;

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
        if (kind == PC_SITE_INSTRUMENTED || (kind == PC_SITE_SEGMENT && scope != PC_CENSUS_COUNT))
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

/* The state of the instruction at unit i of units[n] (tables ready),
 * read in scope; *fails is set for BACKING_OFF. */
static pc_site_state
site_state(const uint16_t *units, Py_ssize_t n, Py_ssize_t i, pc_census_scope scope,
           unsigned *fails)
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
read_copy(const uint16_t *units, Py_ssize_t n, Py_ssize_t i, pc_census_scope scope, pc_site_read *r)
{
    r->fails = 0;
    r->state = site_state(units, n, i, scope, &r->fails);
    r->op = units[i] & 0xff;
    r->counter = r->state == PC_STATE_BACKING_OFF ? units[i + 1] : 0;
}

void
pc_census_read_site(PyCodeObject *co, Py_ssize_t n, Py_ssize_t i, pc_census_scope scope,
                    pc_site_read *r)
{
    Py_ssize_t k, ncopies;
    int fam;
    read_copy(pc_code_copy(co, 0), n, i, scope, r);
    if (state_rank(r->state) < 0 || r->state == PC_STATE_SPECIALIZED)
        return; /* no site, excluded, or the most advanced already */
    assert(pc_ct.kind[r->op] != PC_SITE_NONE);
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
        if (pc_ct.base[c.op] == fam && state_rank(c.state) > state_rank(r->state)) {
            *r = c;
            if (c.state == PC_STATE_SPECIALIZED)
                return;
        }
    }
}

static int
append_site(PyObject *sites, Py_ssize_t i, int fam, unsigned fails, unsigned counter)
{
    PyObject *t = Py_BuildValue("(nsII)", i * 2, pc_ct.name[fam], fails, counter >> 4);
    if (t == NULL || PyList_Append(sites, t) < 0) {
        Py_XDECREF(t);
        return -1;
    }
    Py_DECREF(t);
    return 0;
}

int
pc_census_code(PyObject *code, pc_census *acc, PyObject *sites, pc_census_scope scope)
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
            acc->failed_attempts[fam] += r.fails;
            if (sites != NULL && append_site(sites, i, fam, r.fails, r.counter) < 0)
                return -1;
        }
        i += pc_ct.caches[op];
    }
    return 0;
}
