/* mkdir -p, each folder made private (0700): the caches' folders. */
#ifndef ICUDA_MAKE_DIRS_H
#define ICUDA_MAKE_DIRS_H

/* 0 when path is a folder (made now or before), -1 with errno. A path too
 * long for PATH_MAX is ENAMETOOLONG. */
int make_dirs(const char *path);

#endif
