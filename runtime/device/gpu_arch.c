#include "gpu_arch.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nvrtc_compile.h"

static pthread_once_t once = PTHREAD_ONCE_INIT;
static char found_arch[32], found_note[160];
static int found_gpu;

/* Reads the compute capability of device 0 through the driver, loaded with
 * dlopen so that machines without one still start. cuInit makes
 * no context; the GPU worker, a separate process, owns that. */
static void probe(void) {
    const char *forced = getenv("ICUDA_ARCH");
    if (forced && *forced) {
        snprintf(found_arch, sizeof found_arch, "%s", forced);
        snprintf(found_note, sizeof found_note, "set by ICUDA_ARCH");
        return;
    }
    void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (lib) {
        typedef int (*init_t)(unsigned);
        typedef int (*count_t)(int *);
        typedef int (*get_t)(int *, int);
        typedef int (*attr_t)(int *, int, int);
        typedef int (*name_t)(char *, int, int);
        init_t init = (init_t)dlsym(lib, "cuInit");
        count_t count = (count_t)dlsym(lib, "cuDeviceGetCount");
        get_t get = (get_t)dlsym(lib, "cuDeviceGet");
        attr_t attr = (attr_t)dlsym(lib, "cuDeviceGetAttribute");
        name_t name = (name_t)dlsym(lib, "cuDeviceGetName");
        int n = 0, dev = 0, major = 0, minor = 0;
        char devname[100] = "";
        /* 75, 76: CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR / _MINOR */
        if (init && count && get && attr && init(0) == 0 && count(&n) == 0 && n > 0 && get(&dev, 0) == 0 &&
            attr(&major, 75, dev) == 0 && attr(&minor, 76, dev) == 0) {
            if (name) name(devname, sizeof devname, dev);
            snprintf(found_arch, sizeof found_arch, "sm_%d%d", major, minor);
            snprintf(found_note, sizeof found_note, "%s, compute capability %d.%d", devname, major, minor);
            found_gpu = 1;
            return; /* the library stays loaded: unloading a driver is unsafe */
        }
        dlclose(lib);
        snprintf(found_note, sizeof found_note, "no GPU found by the CUDA driver");
    } else {
        snprintf(found_note, sizeof found_note, "no CUDA driver (libcuda.so.1) on this machine");
    }
    snprintf(found_arch, sizeof found_arch, "sm_%d", nvrtc_newest_arch());
    size_t n = strlen(found_note);
    snprintf(found_note + n, sizeof found_note - n, "; compiling for %s, the newest NVRTC supports", found_arch);
}

int gpu_arch_resolve(char *arch, size_t cap, char *note, size_t note_cap) {
    pthread_once(&once, probe);
    snprintf(arch, cap, "%s", found_arch);
    if (note) snprintf(note, note_cap, "%s", found_note);
    return found_gpu;
}
