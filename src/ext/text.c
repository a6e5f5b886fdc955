/* text.c: Python strings in the dump's text encoding (text.h). */
#include "text.h"

#include "../format/psf_text.h"

/* The UTF-8 bytes of s, surrogates included ("surrogatepass"). */
static PyObject *
utf8_bytes(PyObject *s)
{
    if (!PyUnicode_Check(s)) {
        PyErr_Format(PyExc_TypeError, "pystats: text must be str, not %.100s", Py_TYPE(s)->tp_name);
        return NULL;
    }
    return PyUnicode_AsEncodedString(s, "utf-8", "surrogatepass");
}

Py_ssize_t
pc_text_encode(PyObject *s, char *dst, size_t cap, int *cut)
{
    PyObject *b = utf8_bytes(s); /* owned */
    size_t n;

    if (b == NULL)
        return -1;
    n = psf_text_encode(PyBytes_AS_STRING(b), (size_t)PyBytes_GET_SIZE(b), dst, cap);
    Py_DECREF(b);
    *cut = n >= cap;
    return (Py_ssize_t)(n >= cap ? strlen(dst) : n);
}

PyObject *
pc_text_encode_str(PyObject *s)
{
    PyObject *b = utf8_bytes(s), *r = NULL; /* owned */
    size_t n, cap;
    char *buf;

    if (b == NULL)
        return NULL;
    n = (size_t)PyBytes_GET_SIZE(b);
    cap = PSF_TEXT_MAX(n) + 1;
    buf = PyMem_RawMalloc(cap);
    if (buf == NULL) {
        Py_DECREF(b);
        return PyErr_NoMemory();
    }
    n = psf_text_encode(PyBytes_AS_STRING(b), n, buf, cap);
    r = PyUnicode_FromStringAndSize(buf, (Py_ssize_t)n);
    PyMem_RawFree(buf);
    Py_DECREF(b);
    return r;
}
