/*
 * download_part.c — the bottom of the downloader: closing the "<dest>.part"
 * file an attempt appends to (fsync'd before a rename) and committing it
 * as dest, durably. It calls nothing of the downloader's, so the download
 * files form a stack: the .part (here) and the log (download_progress.c),
 * what an attempt's end means (download_result.c), one attempt
 * (download_xfer.c), and the scheduler on top (download.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "download_impl.h"

/* Close the .part; durable: fsync first (before a rename). A failure is a
 * write error (the data never reached the disk), kept in write_errno. */
int dl_part_close(dl_xfer *x, int durable)
{
    if (!x->part)
        return 0;
    int bad = fflush(x->part) != 0;
    if (!bad && durable && fsync(fileno(x->part)) != 0)
        bad = 1;
    if (bad && !x->write_errno)
        x->write_errno = errno ? errno : EIO;
    if (fclose(x->part) != 0 && !bad) {
        bad = 1;
        if (!x->write_errno)
            x->write_errno = errno ? errno : EIO;
    }
    x->part = NULL;
    return bad ? -1 : 0;
}

/* fsync the directory holding path, so the rename itself is durable.
 * Best effort: some file systems refuse to fsync a directory. */
static void sync_parent_dir(const char *path)
{
    char *copy = strdup(path);
    if (!copy)
        return;
    int fd = open(dirname(copy), O_RDONLY | O_DIRECTORY);
    if (fd >= 0) {
        (void)fsync(fd);
        close(fd);
    }
    free(copy);
}

/* The body is complete: fsync the .part and rename it to dest. */
int dl_part_commit(dl_xfer *x)
{
    if (dl_part_close(x, 1) < 0)
        return -1;
    if (rename(x->part_path, x->item->dest) != 0) {
        snprintf(x->cause, sizeof x->cause, "cannot rename %s to %s: %s", x->part_path,
                 x->item->dest, strerror(errno));
        return -1;
    }
    sync_parent_dir(x->item->dest);
    return 0;
}
