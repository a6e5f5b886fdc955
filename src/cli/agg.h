/* agg.h: the aggregate of many dumps: groups of summed counters.
 *
 * Files are summed only with files that count the same thing: a group is
 * one (source, Python version, counting semantic).  Native CPython dumps
 * count specialized forms separately; this project's collector counts
 * base instructions; different versions number and name opcodes
 * differently.  Within a group, counters are keyed by their canonical
 * spelling (psf_key_canon) and summed with overflow checks; flag keys
 * (opcode[X].specializable) are OR-ed, never summed.
 */
#ifndef AGG_H
#define AGG_H

#include "ktab.h"
#include "../format/psf_key.h"

#include <stdint.h>

enum agg_source { AGG_NATIVE = 0, AGG_OWN = 1, AGG_SOURCE_COUNT };
extern const char *const agg_source_name[AGG_SOURCE_COUNT];

enum agg_format {
    AGG_FMT_NATIVE_TEXT = 0, /* CPython --enable-pystats dump */
    AGG_FMT_OWN_TEXT,        /* this project's dump format */
    AGG_FMT_CPYTHON_JSON,    /* summarize_stats.py --json-output */
    AGG_FMT_SUMMARY_JSON,    /* pystats summarize --json */
    AGG_FMT_COUNT
};
extern const char *const agg_format_name[AGG_FMT_COUNT];

enum agg_problem {
    AGG_P_UNREADABLE = 0,
    AGG_P_EMPTY,
    AGG_P_BINARY,
    AGG_P_TRUNCATED,
    AGG_P_UNPARSABLE,
    AGG_P_OVERFLOW,
    AGG_P_UNSUPPORTED,
    AGG_P_COUNT
};
extern const char *const agg_problem_name[AGG_P_COUNT];

/* Flags per counter slot. */
enum { AGG_F_FLAG = 1, AGG_F_SATURATED = 2, AGG_F_MAX = 4 };

/* How a value joins a slot: summed, OR-ed (a flag), or the maximum kept
 * (census site attempts, a state rather than a count). */
enum { AGG_ADD_SUM = 0, AGG_ADD_FLAG = 1, AGG_ADD_MAX = 2 };

/* Distinct text values with how many files had each; bounded: past
 * AGG_STR_MAX values the rest is counted under "(other)". */
#define AGG_STR_MAX 32
typedef struct agg_str {
    char *text; /* owned */
    uint64_t n;
} agg_str;
typedef struct agg_strs {
    agg_str *v; /* owned */
    size_t n, cap;
} agg_strs;

/* Free the texts and the list; s is left empty. */
void agg_strs_free(agg_strs *s);
void agg_strs_add(agg_strs *s, const char *text, size_t len, uint64_t n);
/* Every string of src added into dst with its count. */
void agg_strs_merge(agg_strs *dst, const agg_strs *src);

/* Header keys a CPython summary (summarize_stats.py --json-output) gives
 * the group it is read into: what the file says about itself, used
 * before any built-in table (read_json.c writes them, model.c reads
 * them).  Values are names separated by single spaces. */
#define AGG_HDR_CPY_SPECIALIZED "cpython.specialized_instructions"
#define AGG_HDR_CPY_DEFINES "cpython.defines"             /* "[N]" follows */
#define AGG_HDR_CPY_STATS_DEFINES "cpython.stats_defines" /* "[N]" follows */
#define AGG_HDR_CPY_METADATA "cpython.metadata."          /* then the member */
#define AGG_HDR_CPY_INPUT "cpython.input"                 /* the file's name */

/* A header key of own dumps with the values seen. */
typedef struct agg_hdr {
    char *key; /* owned */
    agg_strs vals;
} agg_hdr;

/* A key as parsed once, when its slot was made (psf_key_parse against
 * the format's vocabulary): the kind and fields of a psf_key, its parts
 * as offsets into the key (AGG_KEY_NONE: absent).  Later stages read it
 * (agg_key_of) instead of parsing the key again. */
#define AGG_KEY_NONE UINT32_MAX
typedef struct agg_key {
    int kind; /* psf_key_kind */
    int field;
    uint32_t a_off, a_len, b_off, b_len;
    long a_num, b_num;
} agg_key;

typedef struct agg_group {
    int source;          /* agg_source */
    int minor;           /* 3.minor; 0 if unknown */
    char *counts;        /* owned: "specialized-forms", "base-instructions" */
    ktab keys;           /* canonical key -> slot */
    uint64_t *val;       /* owned, keys.n entries */
    unsigned char *flag; /* owned, AGG_F_* per slot */
    agg_key *key;        /* owned: each slot's key, parsed */
    size_t val_cap;
    uint64_t files;
    uint64_t fmt[AGG_FMT_COUNT];
    /* Files counted that the rule of FORMAT.md 1.5 does not vouch for:
     * not the reader's (nor root's), or in a directory others could have
     * put or replaced them in (load.c).  A file such a dump names as a
     * source is never read (agg_group_vouched). */
    uint64_t foreign;
    agg_strs how; /* how the version was found */
    agg_strs collectors;
    agg_hdr *hdr; /* owned */
    size_t nhdr, hdr_cap;
    char *time_start;       /* owned: earliest meta.time.start */
    char *time_end;         /* owned: latest meta.time.end */
    char *label;            /* owned: meta.label of its files when
                             * grouped by label (--by-label), else NULL */
    uint64_t weight_labels; /* --equal-weight: labels scaled, each to */
    uint64_t weight_total;  /* this many executions (0: not weighted) */
} agg_group;

/* A problem kept for the report (the first AGG_NOTES_MAX). */
#define AGG_NOTES_MAX 50
typedef struct agg_note {
    int kind;
    char *text; /* owned: "file:line: message" */
} agg_note;

typedef struct agg {
    agg_group **g; /* owned */
    size_t ng, gcap;
    uint64_t problems[AGG_P_COUNT];
    agg_note notes[AGG_NOTES_MAX];
    size_t nnotes;
    uint64_t inputs; /* files looked at */
    int quiet;       /* do not print warnings */
    /* Optional: told of every problem agg_problem records (pystats
     * check names the files).  Not merged; may be called from a reader
     * thread. */
    void (*on_problem)(void *ctx, int kind, const char *file, unsigned long line, const char *msg);
    void *problem_ctx;
} agg;

void agg_init(agg *a);
void agg_free(agg *a);

/* The group for (source, minor, counts), created if new. */
agg_group *agg_group_get(agg *a, int source, int minor, const char *counts);
/* The same with a label (NULL: not grouped by label). */
agg_group *agg_group_get_label(agg *a, int source, int minor, const char *counts,
                               const char *label);
/* Whether two groups count the same thing (they differ by label at most). */
int agg_same_kind(const agg_group *x, const agg_group *y);

/* Slot of canonical key s[0..n) in g, created (zero) if new. */
size_t agg_slot(agg_group *g, const char *s, size_t n);
/* The same, the key already parsed (parsed: as another group parsed
 * the same spelling), as merging does. */
size_t agg_slot_parsed(agg_group *g, const char *s, size_t n, const agg_key *parsed);
/* k (parsed from key s) as an agg_key, and back (k's parts into s). */
void agg_key_from(const char *s, const psf_key *k, agg_key *out);
void agg_key_to(const char *s, const agg_key *p, psf_key *k);
/* The parsed key of slot: k's parts point into the group's key. */
void agg_key_of(const agg_group *g, size_t slot, psf_key *k);

/* Add v to a slot (mode AGG_ADD_*: or OR it in for flag keys, or keep the
 * larger).  Returns 0, or 1 if the sum overflowed 64 bits (the slot then
 * stays at 2**64-1, marked). */
int agg_add(agg_group *g, size_t slot, uint64_t v, int mode);

/* The AGG_ADD_* mode of a key kind (psf_key_kind). */
int agg_mode_of_kind(int kind);

/* Record a header value of an own dump. */
void agg_hdr_add(agg_group *g, const char *key, const char *val, uint64_t n);
/* A numeric header summed over the group's files (each value times the
 * files that carry it; values that are not decimal numbers left out;
 * saturating): a known leftover's bound (PSF_H_LEFTOVER_BOUND). */
uint64_t agg_hdr_sum(const agg_group *g, const char *key);
/* The values of a header in the group, or NULL where no file has it. */
const agg_strs *agg_hdr_vals(const agg_group *g, const char *key);

/* Record and print a problem: "pystats: warning: FILE:LINE: message".
 * line 0 means the whole file. */
void agg_problem(agg *a, int kind, const char *file, unsigned long line, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

/* Add everything of src into dst (src is left intact). */
void agg_merge(agg *dst, const agg *src);

/* Widen the group's time range with one dump's start and end. */
void agg_time(agg_group *g, const char *start, const char *end);

/* Whether every file of g is the reader's by the rule of FORMAT.md 1.5
 * and a dump (a JSON summary travels: whoever wrote it, the reader owns
 * the copy), so that the source files its dumps name may be read. */
int agg_group_vouched(const agg_group *g);

/* Total files counted in all groups. */
uint64_t agg_files(const agg *a);

/* Sort groups: most files first, then source, then version. */
void agg_sort(agg *a);

#endif
