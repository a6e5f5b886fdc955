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
 * --equal-weight, bit 2 two reader threads; and special files among the
 * others: bit 4 a sparse file of 64 GiB (no disk used), bit 5 a FIFO,
 * bit 6 a symbolic link to /dev/zero.  Each of those is one unreadable
 * problem and the other files are still read: checked here. */
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
static char names[SET_MAX + 3][sizeof dir + 32];
static size_t nnames;

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
    clear_dir();
    if (dir[0])
        rmdir(dir);
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

/* The special files the options byte asks for; how many were made. */
static size_t
put_special(unsigned opts)
{
    size_t made = 0;
    int fd;

    if (opts & 16) {
        snprintf(names[nnames], sizeof names[0], "%s/huge.txt", dir);
        if ((fd = open(names[nnames], O_WRONLY | O_CREAT | O_TRUNC, 0600)) < 0 ||
            ftruncate(fd, (off_t)64 << 30) != 0 || close(fd) != 0)
            abort();
        nnames++, made++;
    }
    if (opts & 32) {
        snprintf(names[nnames], sizeof names[0], "%s/fifo.txt", dir);
        if (mkfifo(names[nnames], 0600) != 0)
            abort();
        nnames++, made++;
    }
    if (opts & 64) {
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
    special = put_special(data[0]);

    cs = check_load(inputs, 1, &opt, &a);
    /* Each special file is one unreadable problem, never read. */
    if (a.problems[AGG_P_UNREADABLE] < special)
        abort();
    ro.trust = check_verdict(cs, verdict, sizeof verdict);
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
    }
    check_free(cs);
    agg_free(&a);
    return 0;
}
