/* psf_tables.h: CPython's numbers for opcodes, specialization failure
 * kinds and eval-call kinds, per interpreter version.
 *
 * Native dumps of CPython 3.11 and 3.12 write opcodes as numbers and every
 * version writes failure kinds as numbers; these tables name them without
 * a CPython source tree.  The data (psf_tables_data.c) is generated from
 * the TSV files in data/tables/, taken from CPython 3.11.2, 3.12.1, 3.13.5
 * and 3.14.7 (opcodes, failure kinds).
 * Versions are given as the minor number of 3.x (11, 12, 13, 14).
 */
#ifndef PSF_TABLES_H
#define PSF_TABLES_H

#include <stddef.h>

typedef struct psf_tab_kind {
    int value;        /* -1 ends a table */
    const char *name; /* without the SPEC_FAIL_ / EVAL_CALL_ prefix */
} psf_tab_kind;

/* Generated arrays (psf_tables_data.c). */
extern const char *const psf_tab_opcodes_3_11_name[256];
extern const char *const psf_tab_opcodes_3_11_family[256];
extern const char *const psf_tab_opcodes_3_12_name[256];
extern const char *const psf_tab_opcodes_3_12_family[256];
extern const char *const psf_tab_opcodes_3_13_name[256];
extern const char *const psf_tab_opcodes_3_13_family[256];
extern const char *const psf_tab_opcodes_3_14_name[256];
extern const char *const psf_tab_opcodes_3_14_family[256];
extern const psf_tab_kind psf_tab_spec_fail_kinds_3_11[];
extern const psf_tab_kind psf_tab_spec_fail_kinds_3_13[];
extern const psf_tab_kind psf_tab_spec_fail_kinds_3_14[];
extern const psf_tab_kind psf_tab_eval_call_kinds_3_13[];
extern const psf_tab_kind psf_tab_specialized_3_13[];
extern const psf_tab_kind psf_tab_specialized_3_14[];

/* The tables of each version (NULL where it has none), in order of
 * version, ended by minor 0: the one index of them. */
typedef struct psf_tab_version {
    int minor;
    const char *const *opnames, *const *families; /* [256] */
    const psf_tab_kind *fail_kinds, *specialized, *call_kinds;
} psf_tab_version;
extern const psf_tab_version psf_tab_versions[];

/* Whether built-in opcode numbers exist for 3.minor (11, 12, 13, 14). */
int psf_tab_has_opcodes(int minor);

/* Name of opcode number num on 3.minor, or NULL if unknown. */
const char *psf_tab_opname(int minor, int num);

/* The family (base instruction) of the instruction called name on
 * 3.minor: "LOAD_ATTR" for "LOAD_ATTR_SLOT", the name itself for a base
 * instruction.  Versions without a table (3.15 and later) use the newest
 * table and then a prefix rule (a name that starts with a known
 * specializable family followed by "_" belongs to it).  Returns NULL for a
 * name no table knows and no rule places.  The result is a static string
 * or name itself. */
const char *psf_tab_family(int minor, const char *name);

/* Name the failure kind `kind` of family `family` on 3.minor into buf as
 * "ATTR_PROPERTY", "OTHER" (shared kinds), or "kind N" where no name is
 * known (3.12 has no table).  Returns 1 if a name was found, 0 for the
 * "kind N" fallback. */
int psf_tab_fail_kind(int minor, const char *family, int kind, char *buf, size_t size);

/* The failure-kind name prefix CPython uses for a family on 3.minor:
 * "ATTR" for LOAD_ATTR and STORE_ATTR, "ITER" for FOR_ITER and SEND on
 * 3.12+, "SUPER" for LOAD_SUPER_ATTR, "SUBSCR" for *_SUBSCR, otherwise
 * the family name. */
const char *psf_tab_fail_prefix(int minor, const char *family);

/* The names (without SPEC_FAIL_) the built-in table of 3.minor gives
 * failure kind number `kind`, in the order Python/specialize.c defines
 * them, into names[0..max); returns how many (0: no table or no name). */
size_t psf_tab_fail_names(int minor, int kind, const char **names, size_t max);

/* CPython's own label of failure kind `kind` of instruction `opname`, as
 * Tools/scripts/summarize_stats.py of 3.minor writes it, into buf:
 * `names` are the SPEC_FAIL_ names of that number (a summary's own
 * "_defines", or psf_tab_fail_names).  Kinds 0-8 (0-6 on 3.11) take the
 * first name whole; above that the instruction picks a prefix (3.11:
 * *ATTR -> ATTR, *SUBSCR -> SUBSCR, PRECALL* -> CALL; 3.12+:
 * LOAD_SUPER_ATTR -> SUPER, *ATTR -> ATTR, FOR_ITER and SEND (3.14+: and
 * GET_ITER) -> ITER, *SUBSCR -> SUBSCR; otherwise the name itself) and the
 * first name starting with it gives the label: the rest after the prefix
 * and "_", lowercased, "_" as spaces ("mutable class").  "kind N" when no
 * name fits.  Returns 1 if a name was found (*matched, if not NULL, is
 * then that name: "ATTR_MUTABLE_CLASS"), 0 for "kind N". */
int psf_tab_fail_label(int minor, const char *opname, int kind, const char *const *names,
                       size_t nnames, char *buf, size_t size, const char **matched);

/* EVAL_CALL_* name of index kind ("VECTOR"), or NULL. */
const char *psf_tab_eval_call_kind(int kind);

/* What Tools/scripts/summarize_stats.py --json-output of 3.minor adds to
 * the dumps' sums, each table in the order the script reads it:
 * `specialized`, opcode._specialized_opmap (number, name; the script
 * leaves out names holding "__"); `fail_kinds`, every #define SPEC_FAIL_*
 * of Python/specialize.c; `call_kinds`, every #define EVAL_CALL_* of
 * Include/cpython/pystats.h.  Returns 0, or -1 for a version whose tables
 * are not all built in (3.11, 3.12: no list of specialized instructions,
 * 3.12 no failure kinds; 3.15 and later: their numbers are not known). */
typedef struct psf_tab_script {
    const psf_tab_kind *specialized, *fail_kinds, *call_kinds;
} psf_tab_script;
int psf_tab_script_tables(int minor, psf_tab_script *out);

#endif
