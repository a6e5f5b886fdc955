/* codeinfo.c: the per code object tables behind the hot paths (see
 * codeinfo.h): built on first sight of a code object, on the slow path,
 * and hung on its co_extra slot. */
#include "codeinfo.h"

pc_codeinfo *pc_last_info;

/* Handed down by the module layer (lifecycle.c), whose free function
 * owns the order in which the sources let go of a dying code object. */
Py_ssize_t pc_code_extra_index = -1;

void
pc_codeinfo_init(Py_ssize_t extra_index)
{
    pc_code_extra_index = extra_index;
}

void
pc_codeinfo_free(pc_codeinfo *ci)
{
    if (ci == pc_last_info)
        pc_last_info = NULL;
    assert(pc_last_info != ci); /* never a freed one */
    PyMem_RawFree(ci);
}

static pc_codeinfo *codeinfo_new(PyObject *code);

pc_codeinfo *
pc_codeinfo_slow(PyObject *code)
{
    pc_codeinfo *ci;
    pc_lock(); /* another thread may be building the same one */
    ci = codeinfo_new(code);
    pc_unlock();
    return ci;
}

static pc_codeinfo *
codeinfo_new(PyObject *code)
{
    void *extra = NULL;
    pc_codeinfo *ci = NULL;
    PyObject *bytes = NULL; /* owned */
    pc_exc saved;           /* the exception in flight */
    Py_ssize_t i, n;
    const uint8_t *raw;

    assert(pc_code_extra_index >= 0);
    if (pc_code_get_extra(code, pc_code_extra_index, &extra) == 0 && extra) {
        assert(((pc_codeinfo *)extra)->code == code);
        pc_last_info = extra;
        return extra;
    }
    /* Never disturb an exception the interpreter is propagating. */
    saved = pc_exc_save();
    /* co_code: the code without specialization or instrumentation, so
     * each instruction reads as its base opcode. */
    bytes = PyCode_GetCode((PyCodeObject *)code);
    if (bytes == NULL || !PyBytes_Check(bytes))
        goto error;
    n = PyBytes_GET_SIZE(bytes) / 2;
    ci = PyMem_RawMalloc(sizeof(pc_codeinfo) + (size_t)n + 1);
    if (ci == NULL)
        goto error;
    ci->code = code;
    ci->n = n;
    ci->seg = NULL;
    ci->first_resume = n;
    raw = (const uint8_t *)PyBytes_AS_STRING(bytes);
    for (i = 0; i < n; i++) {
        ci->op[i] = raw[2 * i];
        if (ci->first_resume == n && ci->op[i] == pc_g.resume_op)
            ci->first_resume = i;
    }
    assert(ci->first_resume == n || ci->op[ci->first_resume] == pc_g.resume_op);
    ci->hot = pc_hot_new(code, ci->op, n);
    if (ci->hot == NULL) {
        PyMem_RawFree(ci);
        ci = NULL;
        goto error;
    }
    if (pc_code_set_extra(code, pc_code_extra_index, ci) != 0) {
        pc_hot_code_dead(ci->hot);
        PyMem_RawFree(ci);
        ci = NULL;
        goto error;
    }
    pc_last_info = ci;
    Py_DECREF(bytes);
    pc_exc_restore(saved);
    return ci;

error:
    Py_XDECREF(bytes);
    pc_g.error_pending = 1;
    pc_exc_restore(saved);
    return NULL;
}
