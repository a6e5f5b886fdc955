/* outfile.c: writing a report whole or not at all (see outfile.h). */
#include "outfile.h"

#include "cli.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int
outfile_open(outfile *o, const char *path)
{
    const char *slash = strrchr(path, '/');
    size_t dlen = slash ? (size_t)(slash - path + 1) : 0;
    struct stat st;
    int fd;

    memset(o, 0, sizeof *o);
    o->path = cli_xstrdup(path);
    if (strcmp(path, "-") == 0) {
        o->fp = stdout;
        return 0;
    }
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
        /* A device or a pipe is written in place: a rename would replace
         * /dev/null with a regular file. */
        o->fp = fopen(path, "w");
        if (o->fp == NULL)
            goto fail;
        o->direct = 1;
        return 0;
    }
    o->tmp = cli_xmalloc(strlen(path) + 16);
    sprintf(o->tmp, "%.*s.%s.XXXXXX", (int)dlen, path, path + dlen);
    fd = mkstemp(o->tmp);
    if (fd < 0)
        goto fail;
    /* mkstemp makes the file 0600; a report gets the usual mode. */
    {
        mode_t mask = umask(0);
        umask(mask);
        (void)fchmod(fd, 0666 & ~mask);
    }
    o->fp = fdopen(fd, "w");
    if (o->fp == NULL) {
        int e = errno;
        close(fd);
        unlink(o->tmp);
        errno = e;
        goto fail;
    }
    return 0;
fail:
    free(o->tmp);
    free(o->path);
    memset(o, 0, sizeof *o);
    return -1;
}

int
outfile_commit(outfile *o)
{
    int ret = -1, e = 0;

    if (o->tmp == NULL) {
        if (fflush(o->fp) != 0 || ferror(o->fp))
            e = errno ? errno : EIO;
        else
            ret = 0;
        if (o->direct && fclose(o->fp) != 0 && ret == 0) {
            e = errno;
            ret = -1;
        }
        goto done;
    }
    if (fflush(o->fp) != 0 || ferror(o->fp) || fsync(fileno(o->fp)) != 0) {
        e = errno ? errno : EIO;
        fclose(o->fp);
    }
    else if (fclose(o->fp) != 0) {
        e = errno;
    }
    else if (rename(o->tmp, o->path) != 0) {
        e = errno;
    }
    else {
        ret = 0;
    }
    if (ret != 0)
        unlink(o->tmp);
done:
    free(o->tmp);
    free(o->path);
    memset(o, 0, sizeof *o);
    errno = e;
    return ret;
}

void
outfile_abort(outfile *o)
{
    if (o->tmp) {
        fclose(o->fp);
        unlink(o->tmp);
    }
    else if (o->direct) {
        fclose(o->fp);
    }
    free(o->tmp);
    free(o->path);
    memset(o, 0, sizeof *o);
}
