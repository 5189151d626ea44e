/* The shared host arena: allocation, reuse, alignment, zero fill, lookups,
 * giving memory back, and sharing the bytes with another process. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "runtime/hostmem/arena.h"
#include "tests/unit/check.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static bool all_zero(const unsigned char *p, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (p[i]) return false;
    return true;
}

/* Resident pages of the memfd, in bytes (st_blocks counts 512-byte units). */
static size_t fd_resident(void) {
    struct stat st;
    if (fstat(arena_fd(), &st) < 0) return 0;
    return (size_t)st.st_blocks * 512;
}

static void *thread_churn(void *arg) {
    (void)arg;
    for (int i = 0; i < 2000; i++) {
        size_t n = 1 + (size_t)(i * 37 % 5000);
        unsigned char *p = arena_alloc(n);
        if (!p) return (void *)1;
        if (p[0] || p[n - 1]) return (void *)2;
        memset(p, 0xAB, n);
        if (arena_free(p) != 0) return (void *)3;
    }
    return NULL;
}

/* In a child under an address-space limit 3 GiB above what it maps now:
 * 64 GiB, 16 and 4 do not map, 1 GiB does (the memfd as long), and the
 * arena works. Exit status 0 when so. */
static int arena_under_an_address_space_limit(void) {
    unsigned long long pages = 0;
    FILE *f = fopen("/proc/self/statm", "r");
    if (!f || fscanf(f, "%llu", &pages) != 1) return 10;
    fclose(f);
    struct rlimit r;
    r.rlim_cur = r.rlim_max = (rlim_t)(pages * (unsigned long long)sysconf(_SC_PAGESIZE) + ((size_t)3 << 30));
    if (setrlimit(RLIMIT_AS, &r) != 0) return 11;
    if (arena_init((size_t)64 << 30) != 0) return 12;
    if (arena_reserved() != (size_t)1 << 30) return 13;
    struct stat st;
    if (fstat(arena_fd(), &st) != 0 || (size_t)st.st_size != arena_reserved()) return 14;
    unsigned char *p = arena_alloc((size_t)100 << 20);
    if (!p || p[0] || p[((size_t)100 << 20) - 1]) return 15;
    memset(p, 1, (size_t)100 << 20);
    return arena_free(p) == 0 ? 0 : 16;
}

/* valgrind's own reservations count against an address-space limit */
static int under_valgrind(void) {
    const char *p = getenv("LD_PRELOAD");
    return p && strstr(p, "vgpreload");
}

int main(void) {
    if (under_valgrind()) {
        CHECK_SKIP(2, "an address-space limit under valgrind limits valgrind too");
    } else {
        pid_t child = fork();
        if (child == 0) _exit(arena_under_an_address_space_limit());
        int limited = -1;
        CHECK(child > 0 && waitpid(child, &limited, 0) == child);
        CHECK(WIFEXITED(limited) && WEXITSTATUS(limited) == 0);
    }

    CHECK(arena_alloc(16) == NULL); /* before init */
    CHECK(arena_init((size_t)8 << 30) == 0);
    CHECK(arena_init((size_t)1 << 20) == 0); /* once per process: no-op */
    CHECK(arena_reserved() == (size_t)8 << 30);
    CHECK(arena_fd() >= 0);
    CHECK(arena_in_use() == 0);
    /* at the fixed address, which the GPU worker maps too */
    CHECK((uintptr_t)0 - arena_offset(NULL) == ARENA_ADDR);

    /* basics */
    CHECK(arena_alloc(0) == NULL);
    unsigned char *a = arena_alloc(100);
    unsigned char *b = arena_alloc(1);
    CHECK(a && b && a != b);
    CHECK(((uintptr_t)a & 63) == 0 && ((uintptr_t)b & 63) == 0);
    CHECK(all_zero(a, 100));
    CHECK(arena_alloc_size(a) == 100);
    CHECK(arena_alloc_size(b) == 1);
    CHECK(arena_alloc_size(a + 64) == 0);
    CHECK(arena_in_use() == 128 + 64);
    CHECK(arena_contains(a, 100));
    CHECK(arena_contains(a, 0));
    int local;
    CHECK(!arena_contains(&local, 4));
    CHECK(arena_contains(a, arena_reserved() - arena_offset(a)));
    CHECK(!arena_contains(b, arena_reserved()));
    CHECK(arena_offset(b) > arena_offset(a));
    CHECK(arena_offset(b) - arena_offset(a) == (uint64_t)(b - a));

    /* bad frees */
    CHECK(arena_free(NULL) == -1);
    CHECK(arena_free(&local) == -1);
    CHECK(arena_free(a + 64) == -1);
    CHECK(arena_free(a + 1) == -1);

    /* reuse and zero fill after free */
    memset(a, 0x5A, 100);
    CHECK(arena_free(a) == 0);
    CHECK(arena_free(a) == -1); /* double free */
    CHECK(arena_alloc_size(a) == 0);
    unsigned char *a2 = arena_alloc(80);
    CHECK(a2 == a); /* the freed block is reused */
    CHECK(all_zero(a2, 80));
    CHECK(arena_free(a2) == 0);
    CHECK(arena_free(b) == 0);
    CHECK(arena_in_use() == 0);

    /* many buffers: alloc thousands, free every other, reallocate, free all */
    enum { N = 5000 };
    static unsigned char *v[N];
    static size_t vn[N];
    bool ok = true;
    for (int i = 0; i < N; i++) {
        vn[i] = 1 + (size_t)((i * 7919) % 4096);
        v[i] = arena_alloc(vn[i]);
        if (!v[i] || ((uintptr_t)v[i] & 63) || !all_zero(v[i], vn[i])) ok = false;
        else memset(v[i], i & 0xFF ? i & 0xFF : 1, vn[i]);
    }
    CHECK(ok);
    ok = true;
    for (int i = 0; i < N; i += 2)
        if (arena_free(v[i]) != 0) ok = false;
    for (int i = 1; i < N; i += 2) /* neighbours untouched */
        if (v[i][0] != (unsigned char)(i & 0xFF ? i & 0xFF : 1) || v[i][vn[i] - 1] != v[i][0])
            ok = false;
    CHECK(ok);
    ok = true;
    for (int i = 0; i < N; i += 2) {
        v[i] = arena_alloc(vn[i]);
        if (!v[i] || !all_zero(v[i], vn[i])) ok = false;
    }
    CHECK(ok);
    /* no two live buffers overlap */
    ok = true;
    for (int i = 1; i < N; i++)
        if (v[i] < v[i - 1] + vn[i - 1] && v[i - 1] < v[i] + vn[i]) ok = false;
    CHECK(ok);
    ok = true;
    for (int i = N - 1; i >= 0; i--)
        if (arena_free(v[i]) != 0) ok = false;
    CHECK(ok);
    CHECK(arena_in_use() == 0);

    /* coalescing: after everything is freed, one big block fits at the start */
    unsigned char *first = arena_alloc(64);
    CHECK(first && arena_offset(first) == 0);
    unsigned char *big = arena_alloc((size_t)N * 4096);
    CHECK(big && arena_offset(big) == 64);
    arena_free(first);
    arena_free(big);

    /* full arena -> NULL, and it still works afterwards */
    CHECK(arena_alloc(arena_reserved() + 1) == NULL);
    CHECK(arena_alloc(SIZE_MAX) == NULL);

    /* a 1 GiB malloc/free loop does not grow memory */
    size_t before = fd_resident();
    ok = true;
    for (int i = 0; i < 4; i++) {
        unsigned char *g = arena_alloc((size_t)1 << 30);
        if (!g) {
            ok = false;
            break;
        }
        memset(g, 1, (size_t)64 << 20); /* touch 64 MiB of it */
        g[((size_t)1 << 30) - 1] = 7;
        if (arena_free(g) != 0) ok = false;
    }
    CHECK(ok);
    CHECK(fd_resident() <= before + ((size_t)1 << 20));
    /* a large block freed in the middle (not at the top) is punched too */
    unsigned char *lo = arena_alloc(1 << 20), *mid = arena_alloc((size_t)256 << 20),
                  *hi = arena_alloc(1 << 20);
    memset(mid, 3, (size_t)256 << 20);
    size_t with_mid = fd_resident();
    arena_free(mid);
    CHECK(fd_resident() + ((size_t)250 << 20) <= with_mid);
    unsigned char *mid2 = arena_alloc((size_t)128 << 20);
    CHECK(mid2 == mid && mid2[0] == 0 && mid2[((size_t)128 << 20) - 1] == 0);
    arena_free(mid2);
    arena_free(lo);
    arena_free(hi);

    /* another process mapping the memfd sees the same bytes, both ways */
    unsigned char *s = arena_alloc(4096);
    memcpy(s, "parent wrote this", 18);
    uint64_t off = arena_offset(s);
    unsigned char *base = s - off;
    int fd = arena_fd(), res = arena_reserved() > 0;
    pid_t pid = fork();
    if (pid == 0) {
        unsigned char *m =
            mmap(NULL, arena_reserved(), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_NORESERVE, fd, 0);
        if (m == MAP_FAILED) _exit(2);
        if (memcmp(m + off, "parent wrote this", 18) != 0) _exit(3);
        memcpy(m + off + 100, "child wrote this", 17);
        /* unmapped before exit: valgrind's leak check reads every mapped
         * byte, here twice the reserve */
        munmap(m, arena_reserved());
        munmap(base, arena_reserved());
        _exit(0);
    }
    int status = -1;
    waitpid(pid, &status, 0);
    CHECK(res && WIFEXITED(status) && WEXITSTATUS(status) == 0);
    CHECK(memcmp(s + 100, "child wrote this", 17) == 0);
    arena_free(s);

    /* threads */
    pthread_t th[4];
    for (int i = 0; i < 4; i++) pthread_create(&th[i], NULL, thread_churn, NULL);
    ok = true;
    for (int i = 0; i < 4; i++) {
        void *r;
        pthread_join(th[i], &r);
        if (r) ok = false;
    }
    CHECK(ok);
    CHECK(arena_in_use() == 0);

    /* the 8 GiB mapping goes before exit, for the same reason as in the
     * child above: it holds no pointer that a leak check needs */
    CHECK(munmap(base, arena_reserved()) == 0);
    return check_report();
}
