/* A shared object's initialisers run after dlopen returns, not inside it.
 *
 * dlopen runs an object's .init_array holding the dynamic linker's lock,
 * and every other thread that asks the linker for anything meanwhile
 * (dlsym, dlopen: the CUDA libraries do, on a thread's first call) waits
 * for that lock. A native cell's code is its object's initialisers, so a
 * cell that starts threads and waits for them (an OpenMP loop calling
 * cuBLAS) would wait forever. Before loading, the object's two dynamic
 * tags that name its init array are renamed to tags the linker ignores;
 * after loading, the array is read through them and called in order, on
 * the loading thread, with the lock free. The file is changed in place,
 * once: an object found renamed is loaded as it is. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "worker_dlinit.h"

#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

/* In the OS-specific range, outside every range the dynamic linker reads. */
#define TAG_DEFERRED_INIT_ARRAY 0x6000a1c0
#define TAG_DEFERRED_INIT_ARRAYSZ 0x6000a1c1

static int read_at(int fd, void *buf, size_t n, off_t off) {
    return pread(fd, buf, n, off) == (ssize_t)n ? 0 : -1;
}

int dlinit_defer(const char *path) {
    int fd = open(path, O_RDWR | O_CLOEXEC);
    if (fd < 0) return -1;
    int rc = -1;
    Elf64_Ehdr eh;
    if (read_at(fd, &eh, sizeof eh, 0) || memcmp(eh.e_ident, ELFMAG, SELFMAG) || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
        eh.e_phentsize != sizeof(Elf64_Phdr) || eh.e_phnum > 4096)
        goto out;
    for (unsigned i = 0; i < eh.e_phnum; i++) {
        Elf64_Phdr ph;
        if (read_at(fd, &ph, sizeof ph, (off_t)(eh.e_phoff + (uint64_t)i * sizeof ph))) goto out;
        if (ph.p_type != PT_DYNAMIC) continue;
        rc = 0;
        for (uint64_t o = 0; o + sizeof(Elf64_Dyn) <= ph.p_filesz; o += sizeof(Elf64_Dyn)) {
            Elf64_Dyn d;
            off_t at = (off_t)(ph.p_offset + o);
            if (read_at(fd, &d, sizeof d, at)) { rc = -1; break; }
            if (d.d_tag == DT_NULL) break;
            if (d.d_tag == TAG_DEFERRED_INIT_ARRAY || d.d_tag == TAG_DEFERRED_INIT_ARRAYSZ) rc = 1;
            if (d.d_tag != DT_INIT_ARRAY && d.d_tag != DT_INIT_ARRAYSZ) continue;
            d.d_tag = d.d_tag == DT_INIT_ARRAY ? TAG_DEFERRED_INIT_ARRAY : TAG_DEFERRED_INIT_ARRAYSZ;
            if (pwrite(fd, &d, sizeof d, at) != (ssize_t)sizeof d) { rc = -1; break; }
            rc = 1;
        }
        break;
    }
out:
    close(fd);
    return rc;
}

void dlinit_run(void *handle) {
    struct link_map *lm = NULL;
    if (!handle || dlinfo(handle, RTLD_DI_LINKMAP, &lm) || !lm) return;
    uintptr_t array = 0;
    size_t size = 0;
    for (const ElfW(Dyn) *d = lm->l_ld; d && d->d_tag != DT_NULL; d++) {
        if (d->d_tag == TAG_DEFERRED_INIT_ARRAY) array = lm->l_addr + d->d_un.d_ptr;
        else if (d->d_tag == TAG_DEFERRED_INIT_ARRAYSZ) size = d->d_un.d_val;
    }
    if (!array) return;
    typedef void (*init_fn)(int, char **, char **);
    const init_fn *fn = (const init_fn *)array;
    for (size_t i = 0; i < size / sizeof *fn; i++) /* the linker's -1 and 0 mean none */
        if (fn[i] && (uintptr_t)fn[i] != (uintptr_t)-1) fn[i](0, NULL, environ);
}
