/* text.h: Python strings in the dump's text encoding (psf_text.h).
 *
 * Any str encodes: lone surrogates and the surrogateescape'd bytes of an
 * undecodable file name go through "surrogatepass" UTF-8 and come out as
 * %XX escapes, so that two different strings never share one spelling.
 */
#ifndef PC_TEXT_H
#define PC_TEXT_H

#include <Python.h>

/* Encode s (a str) into dst, NUL-terminated.  Returns the encoded
 * length (cut at an escape boundary to fit cap - 1, *cut then 1), or -1
 * with an exception set (s not a str, no memory). */
Py_ssize_t pc_text_encode(PyObject *s, char *dst, size_t cap, int *cut);

/* The encoding of s as a new str object, or NULL with an exception. */
PyObject *pc_text_encode_str(PyObject *s);

#endif
