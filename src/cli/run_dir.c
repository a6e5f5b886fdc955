/* run_dir.c: the directories of `pystats run`: the run's own (made
 * private, or -o DIR new or empty, and still the same one when it is
 * read), its dumps counted, and the temporary ones of the probes and of
 * the collector's failure marks. */
#include "run.h"

#include "cli.h"
#include "../format/psf_write.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* Dumps in dir: non-hidden regular files. */
size_t
run_count_dumps(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    size_t n = 0;

    if (d == NULL)
        return 0;
    /* As the readers list a directory: not hidden, not a directory (a
     * file system without d_type is asked). */
    while ((e = readdir(d)) != NULL) {
        struct stat st;
        if (e->d_name[0] == '.' || e->d_type == DT_DIR)
            continue;
        if (e->d_type == DT_UNKNOWN && fstatat(dirfd(d), e->d_name, &st, 0) == 0 &&
            S_ISDIR(st.st_mode))
            continue;
        n++;
    }
    closedir(d);
    return n;
}

static int
say_dir_error(const char *what, const char *dir, int err, long owner)
{
    char why[96];
    fprintf(stderr, "pystats: error: %s", what);
    cli_fput_esc(stderr, dir);
    fprintf(stderr, ": %s\n", psf_dir_strerror(err, owner, why, sizeof why));
    return -1;
}

/* Open dir (creating it with mode) by the collector's rules and note
 * what it is. */
static int
take_dir(run_dir *r, const char *dir, unsigned mode, const char *what)
{
    struct stat st;
    long owner;
    int fd, err = psf_dir_open(dir, mode, &fd, &owner);

    if (err != 0)
        return say_dir_error(what, dir, err, owner);
    if (fstat(fd, &st) != 0) {
        err = errno;
        close(fd);
        return say_dir_error(what, dir, err, -1);
    }
    close(fd);
    r->dev = st.st_dev;
    r->ino = st.st_ino;
    return 0;
}

/* The run's directory: -o DIR (new or empty), else a new unique one
 * under the user's default directory; private (0700) when made here.
 * -1 when it cannot be made or used, -2 when -o names a directory that
 * already holds files (a usage error). */
int
run_dir_make(const char *out, run_dir *r)
{
    r->path = NULL;
    if (out) {
        if (take_dir(r, out, 0700, "cannot use the directory ") != 0)
            return -1;
        if (run_count_dumps(out) != 0) {
            fputs("pystats: error: ", stderr);
            cli_fput_esc(stderr, out);
            fputs(" already holds files: a run needs a new or empty directory, or "
                  "its files would mix with others\n",
                  stderr);
            return -2; /* the option's value, not a failed write */
        }
        r->path = cli_xstrdup(out);
        return 0;
    }
    else {
        char stamp[32], base[PSF_PATH_MAX], *dir;
        time_t now = time(NULL);
        struct tm tm;
        run_dir b;
        size_t n;
        int priv = psf_default_dir(getenv("PYSTATS_TMPDIR"), base, sizeof base);

        if (priv < 0) {
            fprintf(stderr, "pystats: error: PYSTATS_TMPDIR is too long\n");
            return -1;
        }
        /* As the collector does: the shared default when it is the
         * user's, else their own beside it. */
        if (take_dir(&b, base, priv ? 0700 : 0775, "cannot use the directory ") != 0)
            return -1;
        gmtime_r(&now, &tm);
        strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &tm);
        n = strlen(base) + 64;
        dir = cli_xmalloc(n);
        snprintf(dir, n, "%s/run-%s-XXXXXX", base, stamp);
        if (mkdtemp(dir) == NULL) {
            int e = errno;
            fputs("pystats: error: cannot create a run directory under ", stderr);
            cli_fput_esc(stderr, base);
            fprintf(stderr, ": %s\n", strerror(e));
            free(dir);
            return -1;
        }
        if (take_dir(r, dir, 0700, "cannot use the directory ") != 0) {
            free(dir);
            return -1;
        }
        r->path = dir;
        return 0;
    }
}

/* Whether r->path is still the directory the run made. */
int
run_dir_same(const run_dir *r)
{
    struct stat st;
    int fd = open(r->path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC), ok;

    if (fd < 0)
        return 0;
    ok = fstat(fd, &st) == 0 && st.st_dev == r->dev && st.st_ino == r->ino &&
         psf_dir_check((unsigned long)st.st_mode, (unsigned long)st.st_uid) == 0;
    close(fd);
    return ok;
}

/* A private (0700) directory of its own for the probes' dumps, under
 * $TMPDIR or /tmp: a probe never writes where the user reads (the run's
 * directory would then hold a dump of no run).  A new string, or NULL. */
char *
run_tmp_dir(const char *name)
{
    const char *t = getenv("TMPDIR");
    size_t n;
    char *d;

    if (t == NULL || *t != '/')
        t = "/tmp";
    n = strlen(t) + strlen(name) + 16;
    d = cli_xmalloc(n);
    snprintf(d, n, "%s/%s-XXXXXX", t, name);
    if (mkdtemp(d) == NULL) {
        free(d);
        return NULL;
    }
    return d;
}

/* The probe directory and whatever the probes left in it, gone. */
void
run_tmp_dir_remove(char *d)
{
    DIR *dh;
    struct dirent *e;

    if (d == NULL)
        return;
    if ((dh = opendir(d)) != NULL) {
        while ((e = readdir(dh)) != NULL)
            if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
                unlinkat(dirfd(dh), e->d_name, 0);
        closedir(dh);
    }
    rmdir(d);
    free(d);
}
