/* psf_detect.c: telling CPython versions apart in native dumps. */
#include "psf_detect.h"

#include "psf_key.h"

#include <string.h>

int
psf_detect_native(unsigned m, const char **how)
{
    int minor = 0;

    if (m & PSF_M_NEW_316) {
        *how = "instructions or counters new in 3.16 (SEND_VIRTUAL, "
               "SEND_ASYNC_GEN, "
               "method-cache resizing)";
        return 16;
    }
    if (m & PSF_M_NEW_315) {
        *how = "instructions or counters new in 3.15 (GET_ITER_VIRTUAL, "
               "CALL_EX_PY, "
               "RESUME_CHECK_JIT, ..., \"Optimization fitness terminated\", "
               "free-threading lines)";
        return 15;
    }
    if (m & PSF_M_NUMERIC_OP) {
        if (m & (PSF_M_EVAL_CALL | PSF_M_METHOD_CACHE)) {
            minor = 12;
            *how = "opcode numbers with \"Calls via "
                   "PyEval_EvalFrame\"/method-cache lines";
        }
        else {
            minor = 11;
            *how = "opcode numbers without \"Calls via "
                   "PyEval_EvalFrame\"/method-cache lines";
        }
    }
    else if (m & PSF_M_NAMED_OP) {
        if (m & (PSF_M_JIT_MEMORY | PSF_M_MORTAL)) {
            minor = 14;
            *how = "opcode names with JIT-memory or mortal/immortal lines";
        }
        else {
            minor = 13;
            *how = "opcode names without JIT-memory or mortal/immortal lines";
        }
    }
    else if (m & (PSF_M_JIT_MEMORY | PSF_M_MORTAL)) {
        minor = 14;
        *how = "no opcode lines; JIT-memory or mortal/immortal lines";
    }
    else if (m & (PSF_M_GC | PSF_M_RARE)) {
        minor = 13;
        *how = "no opcode lines; GC or rare-event lines";
    }
    else if (m & (PSF_M_EVAL_CALL | PSF_M_METHOD_CACHE)) {
        minor = 12;
        *how = "no opcode lines; \"Calls via PyEval_EvalFrame\"/method-cache "
               "lines";
    }
    else {
        *how = "nothing in the file tells the version";
    }
    return minor;
}

int
psf_parse_version(const char *s, unsigned long n)
{
    unsigned long i = 2;
    int minor = 0;

    if (n < 3 || s[0] != '3' || s[1] != '.')
        return 0;
    for (; i < n && s[i] >= '0' && s[i] <= '9'; i++) {
        minor = minor * 10 + (s[i] - '0');
        if (minor > 999)
            return 0;
    }
    if (i == 2)
        return 0;
    return minor;
}

int
psf_version_from_name(const char *path)
{
    const char *base = strrchr(path, '/'), *p;
    int minor;

    base = base ? base + 1 : path;
    for (p = strstr(base, "-3."); p != NULL; p = strstr(p + 1, "-3.")) {
        const char *q = p + 3;
        while (*q >= '0' && *q <= '9')
            q++;
        /* "-3.15.0a8+-": a version, then a release part. */
        if (q > p + 3 && *q == '.' && q[1] >= '0' && q[1] <= '9' &&
            (minor = psf_parse_version(p + 1, (unsigned long)(q - p - 1))) >= 11)
            return minor;
    }
    return 0;
}
