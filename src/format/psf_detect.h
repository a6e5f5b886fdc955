/* psf_detect.h: telling CPython versions apart in native dumps.
 *
 * Native dumps carry no version.  Which lines a dump has tells it: opcode
 * numbers (3.11, 3.12) or names (3.13+); "Calls via PyEval_EvalFrame" and
 * method-cache lines (added in 3.12); JIT memory and mortal/immortal
 * reference-count lines (added in 3.14).
 */
#ifndef PSF_DETECT_H
#define PSF_DETECT_H

/* From the union of a file's PSF_M_* markers, the minor version of 3.x
 * (0 if nothing tells) and, in *how, a static sentence saying why. */
int psf_detect_native(unsigned marks, const char **how);

/* Parse "3.12", "3.12.1", "3.13.0rc2" into the minor number; 0 if not
 * a 3.x version. */
int psf_parse_version(const char *s, unsigned long n);

#endif
