/* fuzz_set.c: libFuzzer harness for a *set* of input files, the way
 * `pystats check DIR` and `pystats summarize DIR` read a directory.
 *
 * The single-file harness (fuzz_load.c) never reaches what only several
 * files do: findings that grow while others are held (a use-after-free
 * once), sums across files, mixes, duplicates, reader threads merging.
 * Here one fuzz input is split into files at each "\n--- file\n" (at
 * most SET_MAX files; the separator's newlines are its own), written
 * into a private temporary directory (some names carrying control
 * characters), and the directory goes through
 * check_load(), the set checks, --equal-weight and every report.
 *
 * The first byte picks the options: bit 0 --by-label, bit 1
 * --equal-weight, bit 2 two reader threads, bit 4 one more dump made here
 * (gen_dump) whose code names as its source special files (a FIFO, a
 * directory, devices, a file too big to read) and files the reader owns,
 * bit 5 the source view as a page shows it (the dumps' copies only).
 * Every group with per-line counts then goes through `pystats annotate`'s
 * view, as text and as a page: no file is ever waited on or read past
 * its bound, whatever the dumps name.  Special files among the others:
 * bit 6 a sparse file of 64 GiB (no disk used) and a FIFO, bit 7 a
 * symbolic link to /dev/zero; each is one unreadable problem and the
 * other files are still read: checked here. */
#include "../../src/cli/annotate.h"
#include "../../src/cli/check.h"
#include "../../src/cli/report.h"
#include "../../src/cli/report_html.h"
#include "../../src/cli/weight.h"

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define SET_MAX 24
#define SEP "\n--- file\n"

static FILE *devnull;
static char dir[256];
static char names[SET_MAX + 4][sizeof dir + 32];
static size_t nnames;
/* Sources the generated dump names: made in setup() beside the dumps'
 * directory (dir + ".src"), and some of the system's. */
static char srcdir[sizeof dir + 8];
static char src_path[8][sizeof dir + 32];
static const char *const src_name[] = {"fifo", "subdir", "own.py", "big.py", "empty.py"};
#define NSRC_MADE 5

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void
clear_dir(void)
{
    size_t i;

    for (i = 0; i < nnames; i++)
        unlink(names[i]);
    nnames = 0;
}

static void
remove_dir(void)
{
    size_t i;

    clear_dir();
    if (dir[0])
        rmdir(dir);
    for (i = 0; i < NSRC_MADE; i++)
        if (i == 1)
            rmdir(src_path[i]);
        else
            unlink(src_path[i]);
    if (srcdir[0])
        rmdir(srcdir);
}

/* The sources: a FIFO (never opened: it would wait for a writer), a
 * directory, a file of the reader's with lines, one past annotate's bound
 * (sparse), an empty one; then /dev/zero (endless), /dev/null and a name
 * that is gone. */
static void
make_sources(void)
{
    FILE *f;
    int i;

    snprintf(srcdir, sizeof srcdir, "%s.src", dir);
    if (mkdir(srcdir, 0700) != 0)
        abort();
    for (i = 0; i < NSRC_MADE; i++)
        snprintf(src_path[i], sizeof src_path[i], "%s/%s", srcdir, src_name[i]);
    snprintf(src_path[5], sizeof src_path[5], "/dev/zero");
    snprintf(src_path[6], sizeof src_path[6], "/dev/null");
    snprintf(src_path[7], sizeof src_path[7], "%s/gone.py", srcdir);
    if (mkfifo(src_path[0], 0600) != 0 || mkdir(src_path[1], 0700) != 0)
        abort();
    if ((f = fopen(src_path[2], "w")) == NULL)
        abort();
    for (i = 1; i <= 40; i++)
        fprintf(f, "line_%d = %d  # \x1b]0;t\a <b>x</b>\n", i, i);
    fclose(f);
    if ((f = fopen(src_path[3], "w")) == NULL || ftruncate(fileno(f), (65L << 20) + 1) != 0)
        abort();
    fclose(f);
    if ((f = fopen(src_path[4], "w")) == NULL)
        abort();
    fclose(f);
}

static void
setup(void)
{
    const char *tmp = getenv("TMPDIR");

    if ((devnull = fopen("/dev/null", "w")) == NULL)
        abort();
    snprintf(dir, sizeof dir, "%s/pystats-fuzz-set.XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (mkdtemp(dir) == NULL)
        abort();
    make_sources();
    atexit(remove_dir);
}

static void
put_file(const uint8_t *p, size_t n)
{
    /* Every third name carries an escape sequence and a newline, as a
     * hostile writer's could. */
    static const char *const tail[3] = { ".txt", ".json", "\x1b]0;t\a\n.txt" };
    char *path = names[nnames];
    FILE *f;

    snprintf(path, sizeof names[0], "%s/f%02zu%s", dir, nnames, tail[nnames % 3]);
    if ((f = fopen(path, "wb")) == NULL)
        abort();
    if (n && fwrite(p, 1, n, f) != n)
        abort();
    if (fclose(f) != 0)
        abort();
    nnames++;
}

/* A dump of this collector whose hot code names each source of
 * make_sources() (absolute, and relative to its meta.process.cwd), its
 * lines and counts taken from the input's bytes, with a copy of some
 * lines (source[FILE].line[N]) where a byte says so. */
static void
gen_dump(const uint8_t *p, size_t n)
{
    char buf[16384];
    size_t len = 0, i, k = 0;
    int w;

#define B() (n ? p[k++ % n] : 1)
    w = snprintf(buf, sizeof buf,
                 "pystats.format : 2\npystats.collector : pystats 0.1.0\n"
                 "pystats.counts : base-instructions\nmeta.python.version : 3.12.1\n"
                 "meta.collection.mode : count\nmeta.process.cwd : %s\n"
                 "opcode[LOAD_FAST].execution_count : 1\n",
                 srcdir);
    len = (size_t)w;
    for (i = 0; i < 8 + NSRC_MADE; i++) {
        const char *path = i < 8 ? src_path[i] : src_name[i - 8];
        unsigned first = B() % 50, line = first + B() % 8, cnt = 1 + B();
        w = snprintf(buf + len, sizeof buf - len,
                     "code[%s:%u:f%zu].instructions : %u\ncode[%s:%u:f%zu].line[%u] : %u\n", path,
                     first, i, cnt, path, first, i, line, cnt);
        if (w < 0 || (size_t)w >= sizeof buf - len)
            break;
        len += (size_t)w;
        if (B() & 1) {
            w = snprintf(buf + len, sizeof buf - len, "source[%s].line[%u] : copy%%20%u\n", path,
                         line, line);
            if (w < 0 || (size_t)w >= sizeof buf - len)
                break;
            len += (size_t)w;
        }
    }
#undef B
    put_file((const uint8_t *)buf, len);
}

/* The source view of every group with per-line counts, as text and as a
 * page. */
static void
annotate_all(const agg *a, int page)
{
    annotate_opts o = {.top = 0, .dump_text_only = page};
    annotate v;
    m_group m;
    size_t i;

    for (i = 0; i < a->ng; i++) {
        model_build(&m, a->g[i]);
        annotate_build(&v, &m, &o);
        annotate_text(devnull, &v);
        annotate_html(devnull, &v);
        annotate_free(&v);
        model_free(&m);
    }
}

/* The special files the options byte asks for; how many were made. */
static size_t
put_special(unsigned opts)
{
    size_t made = 0;
    int fd;

    if (opts & 64) {
        snprintf(names[nnames], sizeof names[0], "%s/huge.txt", dir);
        if ((fd = open(names[nnames], O_WRONLY | O_CREAT | O_TRUNC, 0600)) < 0 ||
            ftruncate(fd, (off_t)64 << 30) != 0 || close(fd) != 0)
            abort();
        nnames++, made++;
    }
    if (opts & 64) {
        snprintf(names[nnames], sizeof names[0], "%s/fifo.txt", dir);
        if (mkfifo(names[nnames], 0600) != 0)
            abort();
        nnames++, made++;
    }
    if (opts & 128) {
        snprintf(names[nnames], sizeof names[0], "%s/zero.txt", dir);
        if (symlink("/dev/zero", names[nnames]) != 0)
            abort();
        nnames++, made++;
    }
    return made;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const summary_opts ro0 = { .top_pairs = 100, .top_sites = 50 };
    summary_opts ro = ro0;
    summary sum;
    load_opts opt = { .quiet = 1, .jobs = 1 };
    const uint8_t *p, *end, *sep;
    char *inputs[1] = { dir };
    char verdict[1024];
    check_set *cs;
    agg a;
    int equal = 0;
    size_t special;

    if (devnull == NULL)
        setup();
    if (size == 0)
        return 0;
    opt.by_label = data[0] & 1;
    equal = (data[0] & 2) != 0;
    if (equal)
        opt.by_label = 1;
    opt.jobs = (data[0] & 4) ? 2 : 1;
    p = data + 1;
    end = data + size;
    clear_dir();
    while (nnames < SET_MAX) {
        sep = memmem(p, (size_t)(end - p), SEP, sizeof SEP - 1);
        if (sep == NULL) {
            put_file(p, (size_t)(end - p));
            break;
        }
        /* The separator's first newline is its own: a file that ends
         * with one has a blank line before the separator. */
        put_file(p, (size_t)(sep - p));
        p = sep + sizeof SEP - 1;
    }
    if (data[0] & 16)
        gen_dump(data + 1, size - 1);
    special = put_special(data[0]);

    cs = check_load(inputs, 1, &opt, &a);
    /* Each special file is one unreadable problem, never read. */
    if (a.problems[AGG_P_UNREADABLE] < special)
        abort();
    check_verdict(cs, verdict, sizeof verdict);
    ro.trust = check_verdict_reason(cs, verdict, sizeof verdict);
    ro.verdict = check_verdict_word(cs);
    ro.findings = check_items(cs, &ro.nfindings);
    check_report_text(cs, devnull, data[0] & 8);
    check_report_json(cs, devnull);
    if (agg_files(&a)) {
        if (equal)
            weight_equal_labels(&a);
        agg_sort(&a);
        summary_build(&sum, &a, &ro);
        report_markdown(devnull, &sum);
        report_json(devnull, &sum);
        report_html(devnull, &sum);
        summary_free(&sum);
        annotate_all(&a, (data[0] & 32) != 0);
    }
    free((void *)ro.findings);
    check_free(cs);
    agg_free(&a);
    return 0;
}
