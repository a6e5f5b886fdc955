/* native.c: driving the counters of a CPython built with
 * --enable-pystats (3.12+ has sys._stats_on/off/clear/dump), so that
 * the same API neither counts twice nor leaves the native counters
 * running. */
#include "native.h"

int
pc_native_available(void)
{
    PyObject *sys = PyImport_AddModule("sys"); /* borrowed */
    return sys != NULL && PyObject_HasAttrString(sys, "_stats_on");
}

PyObject *
pc_native_call(const char *what)
{
    char name[32] = "_stats_";
    PyObject *sys = PyImport_AddModule("sys"); /* borrowed */
    if (sys == NULL)
        return NULL;
    psf_strlcat(name, what, sizeof name);
    return PyObject_CallMethod(sys, name, NULL);
}
