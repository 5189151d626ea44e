/* What connects two GPUs (CH_PEER_INFO), for %devices' peer matrix: the
 * driver says whether one can reach the other's memory and how well
 * (cuDeviceCanAccessPeer, cuDeviceGetP2PAttribute); the link itself (NVLink
 * or PCIe, and how far apart on PCIe) is NVML's, which the driver installs
 * beside libcuda (libnvidia-ml.so.1). Both are looked up with dlsym, so a
 * driver or a container without them only leaves the answer unknown. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "worker_peer.h"

#include <dlfcn.h>
#include <stdbool.h>
#include <string.h>

/* NVML's few declarations used here (nvml.h is not part of the toolkit). */
typedef struct nvml_device *nvml_device_t;
typedef struct {
    char bus_id_legacy[16];
    unsigned domain, bus, device, pci_device_id, pci_subsystem_id;
    char bus_id[32];
} nvml_pci_info_t;
enum { NVML_OK = 0, NVML_P2P_NVLINK = 2, NVML_P2P_STATUS_OK = 0, NVML_MAX_LINKS = 18 };

static struct {
    bool tried, ok;
    int (*device_by_bus_id)(const char *, nvml_device_t *);
    int (*p2p_status)(nvml_device_t, nvml_device_t, int, int *);
    int (*common_ancestor)(nvml_device_t, nvml_device_t, int *);
    int (*nvlink_state)(nvml_device_t, unsigned, int *);
} nvml;

static bool nvml_load(void) {
    if (nvml.tried) return nvml.ok;
    nvml.tried = true;
    void *h = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!h) return false;
    int (*init)(void);
    *(void **)&init = dlsym(h, "nvmlInit_v2");
    *(void **)&nvml.device_by_bus_id = dlsym(h, "nvmlDeviceGetHandleByPciBusId_v2");
    *(void **)&nvml.p2p_status = dlsym(h, "nvmlDeviceGetP2PStatus");
    *(void **)&nvml.common_ancestor = dlsym(h, "nvmlDeviceGetTopologyCommonAncestor");
    *(void **)&nvml.nvlink_state = dlsym(h, "nvmlDeviceGetNvLinkState");
    nvml.ok = init && nvml.device_by_bus_id && nvml.p2p_status && init() == NVML_OK;
    return nvml.ok;
}

static bool nvml_device(const cuda_driver_t *D, int dev, nvml_device_t *out) {
    CUresult (*bus_id)(char *, int, CUdevice);
    *(void **)&bus_id = dlsym(D->lib, "cuDeviceGetPCIBusId");
    CUdevice d;
    char id[64];
    return bus_id && !D->cuDeviceGet(&d, dev) && !bus_id(id, sizeof id, d) &&
           nvml.device_by_bus_id(id, out) == NVML_OK;
}

static void link_of(const cuda_driver_t *D, int a, int b, ch_peer_info_t *p) {
    nvml_device_t na, nb;
    if (!nvml_load() || !nvml_device(D, a, &na) || !nvml_device(D, b, &nb)) return;
    int st = -1, level = -1;
    if (nvml.p2p_status(na, nb, NVML_P2P_NVLINK, &st) == NVML_OK && st == NVML_P2P_STATUS_OK) {
        p->link = CH_LINK_NVLINK;
        for (unsigned l = 0; nvml.nvlink_state && l < NVML_MAX_LINKS; l++) {
            int on = 0;
            if (nvml.nvlink_state(na, l, &on) == NVML_OK && on) p->nvlinks++;
        }
    } else {
        p->link = CH_LINK_PCIE;
    }
    if (nvml.common_ancestor && nvml.common_ancestor(na, nb, &level) == NVML_OK) p->pcie_level = level;
}

CUresult worker_peer_info(const cuda_driver_t *D, int ndev, int a, int b, ch_peer_info_t *p) {
    memset(p, 0, sizeof *p);
    p->pcie_level = -1;
    if (a < 0 || b < 0 || a >= ndev || b >= ndev) return CUDA_ERROR_INVALID_DEVICE;
    if (a == b) return CUDA_SUCCESS;
    CUresult (*can)(int *, CUdevice, CUdevice);
    CUresult (*attr)(int *, CUdevice_P2PAttribute, CUdevice, CUdevice);
    *(void **)&can = dlsym(D->lib, "cuDeviceCanAccessPeer");
    *(void **)&attr = dlsym(D->lib, "cuDeviceGetP2PAttribute");
    CUdevice da, db;
    CUresult r = D->cuDeviceGet(&da, a);
    if (!r) r = D->cuDeviceGet(&db, b);
    if (r) return r;
    if (can && (r = can(&p->can_access, da, db))) return r;
    if (attr) {
        attr(&p->perf_rank, CU_DEVICE_P2P_ATTRIBUTE_PERFORMANCE_RANK, da, db);
        attr(&p->native_atomics, CU_DEVICE_P2P_ATTRIBUTE_NATIVE_ATOMIC_SUPPORTED, da, db);
        attr(&p->array_access, CU_DEVICE_P2P_ATTRIBUTE_CUDA_ARRAY_ACCESS_SUPPORTED, da, db);
    }
    link_of(D, a, b, p);
    return CUDA_SUCCESS;
}
