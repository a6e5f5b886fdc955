/* psf_detect.h: telling CPython versions apart in native dumps.
 *
 * Native dumps carry no version.  Which lines a dump has tells it: opcode
 * numbers (3.11, 3.12) or names (3.13+); "Calls via PyEval_EvalFrame" and
 * method-cache lines (added in 3.12); JIT memory and mortal/immortal
 * reference-count lines (added in 3.14); instructions and counters new in
 * 3.15 (GET_ITER_VIRTUAL, CALL_EX_PY, RESUME_CHECK_JIT, ...) and 3.16
 * (SEND_VIRTUAL, SEND_ASYNC_GEN, method-cache resizing lines).  A version
 * without the new names of its own (a run that never ran one) reads as the
 * last version before it.
 */
#ifndef PSF_DETECT_H
#define PSF_DETECT_H

/* From the union of a file's PSF_M_* markers, the minor version of 3.x
 * (0 if nothing tells) and, in *how, a static sentence saying why. */
int psf_detect_native(unsigned marks, const char **how);

/* Parse "3.12", "3.12.1", "3.13.0rc2" into the minor number; 0 if not
 * a 3.x version. */
int psf_parse_version(const char *s, unsigned long n);

/* The minor version a published file's name gives (bench_runner's
 * "...-3.15.0a8+-6b632ce-pystats[-BENCH].json": the first "-3.N." after
 * a '-'); 0 if the name says none. */
int psf_version_from_name(const char *path);

#endif
