/* %devices and %device N: the GPUs the worker sees, which one is current,
 * and with several, which reaches which (peer access, over what link).
 * Asks the worker, never the driver in this process. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "magics.h"
#include "runtime/toolkit/cuda_errors.h"
#include "runtime/cuda/cuda_session.h"
#include "runtime/gpu/client/gpu_client.h"
#include "runtime/device/nvrtc_compile.h"
#include "runtime/base/strbuf.h"

static int no_gpu(cell_error_t *err, int code, const char *why) {
    cell_error_set(err, code ? cuda_error_name(code) : "cudaErrorNoDevice", NULL, "%s", why);
    return -1;
}

/* "PCIe through the host bridge (PHB)" for NVML's topology level. */
static const char *pcie_words(int level) {
    switch (level) {
    case 0: return "PCIe, on one board";
    case 10: return "PCIe, one switch (PIX)";
    case 20: return "PCIe, several switches (PXB)";
    case 30: return "PCIe through the host bridge (PHB)";
    case 40: return "PCIe across host bridges of a NUMA node (NODE)";
    case 50: return "PCIe and the link between CPUs (SYS)";
    }
    return "PCIe";
}

static void link_words(const ch_peer_info_t *p, char *buf, size_t n) {
    if (p->link == CH_LINK_NVLINK && p->nvlinks) snprintf(buf, n, "NVLink (%d links)", p->nvlinks);
    else if (p->link == CH_LINK_NVLINK) snprintf(buf, n, "NVLink");
    else if (p->link == CH_LINK_PCIE) snprintf(buf, n, "%s", pcie_words(p->pcie_level));
    else snprintf(buf, n, "link not known (no NVML)");
}

/* Who reaches whom: a line per ordered pair, and a matrix in HTML. */
static void peer_matrix(gpu_client_t *g, int n, strbuf_t *t, strbuf_t *h) {
    sb_puts(t, "peer access (cudaDeviceCanAccessPeer: the first GPU reaching the second's memory), the link, and "
               "whether this session enabled it:\n");
    sb_puts(h, "<p>Peer access: the row's GPU reaching the column's memory (<code>cudaDeviceCanAccessPeer</code>), "
               "over what link, and whether this session enabled it (<code>cudaDeviceEnablePeerAccess</code>)</p>"
               "<table><thead><tr><th></th>");
    for (int b = 0; b < n; b++) sb_printf(h, "<th>GPU %d</th>", b);
    sb_puts(h, "</tr></thead><tbody>");
    for (int a = 0; a < n; a++) {
        sb_printf(h, "<tr><th>GPU %d</th>", a);
        for (int b = 0; b < n; b++) {
            if (a == b) {
                sb_puts(h, "<td>&mdash;</td>");
                continue;
            }
            ch_peer_info_t p;
            char link[96];
            if (gpu_client_peer_info(g, a, b, &p)) {
                sb_printf(t, "  %d -> %d: not known (the worker could not say)\n", a, b);
                sb_puts(h, "<td>?</td>");
                continue;
            }
            link_words(&p, link, sizeof link);
            bool on = gpu_client_peer_enabled(g, a, b);
            if (p.can_access) {
                sb_printf(t, "  %d -> %d: yes, %s; performance rank %d%s; %s\n", a, b, link, p.perf_rank,
                          p.native_atomics ? ", native atomics" : "",
                          on ? "enabled" : "not enabled in this session");
                sb_printf(h, "<td>%s<br>rank %d%s<br>%s</td>", link, p.perf_rank, p.native_atomics ? ", atomics" : "",
                          on ? "<b>enabled</b>" : "not enabled");
            } else {
                sb_printf(t, "  %d -> %d: no peer access (%s): copies between them go through host memory\n", a, b,
                          link);
                sb_printf(h, "<td>no<br>%s</td>", link);
            }
        }
        sb_puts(h, "</tr>");
    }
    sb_puts(h, "</tbody></table>");
}

static int devices_line(magic_ctx_t *mc, const char *args, cell_error_t *err) {
    char why[600];
    gpu_client_t *g = cuda_session_client(mc->cuda, why, sizeof why);
    if (!g) {
        io_printf(mc->io, "stdout", "No GPU: %s\n", why);
        return 0;
    }
    int n = 0, cur = gpu_client_get_device(g);
    gpu_client_device_count(g, &n);
    int drv = gpu_client_driver_version(g);
    strbuf_t t = {0}, h = {0};
    sb_printf(&t, "%d GPU%s; CUDA driver %d.%d, runtime (NVRTC) %s; current device %d\n", n, n == 1 ? "" : "s",
              drv / 1000, drv % 1000 / 10, nvrtc_version_string(), cur);
    sb_printf(&h, "<p>%d GPU%s; CUDA driver %d.%d, runtime (NVRTC) %s; current device %d</p><table><thead><tr>"
              "<th>#</th><th>name</th><th>cc</th><th>SMs</th><th>memory total / free</th><th>bus</th>"
              "<th>peak bandwidth</th><th>L2</th><th>threads/block</th><th>shared/block (opt-in)</th>"
              "<th>regs/block</th><th>threads/SM</th><th>shared/SM</th><th>clock</th></tr></thead><tbody>",
              n, n == 1 ? "" : "s", drv / 1000, drv % 1000 / 10, nvrtc_version_string(), cur);
    for (int d = 0; d < n; d++) {
        gpu_props_t p;
        if (gpu_client_device_props(g, d, &p)) continue;
        size_t fr = 0, tot = p.total_mem;
        if (d == cur) gpu_client_mem_info(g, &fr, &tot);
        /* DDR: two transfers per clock */
        double bw = 2.0 * p.memory_clock_rate_khz * 1e3 * (p.memory_bus_width / 8.0) / 1e9;
        char fbuf[32] = "?";
        if (d == cur) snprintf(fbuf, sizeof fbuf, "%.1f", fr / 1073741824.0);
        sb_printf(&t,
                  "[%d]%s %s, compute capability %d.%d, %d SMs\n"
                  "    memory %.1f GiB total, %s GiB free; %d-bit bus at %.0f MHz: %.0f GB/s peak; L2 %.0f MiB\n"
                  "    per block: %d threads (%d x %d x %d), %d KiB shared (%d KiB opt-in), %d registers; grid up to "
                  "%d x %d x %d\n"
                  "    per SM: %d threads, %d blocks, %d KiB shared, %d registers; warp %d; clock %.0f MHz\n",
                  d, d == cur ? "*" : "", p.name, p.major, p.minor, p.multiprocessor_count, p.total_mem / 1073741824.0,
                  fbuf, p.memory_bus_width, p.memory_clock_rate_khz / 1e3, bw, p.l2_cache_size / 1048576.0,
                  p.max_threads_per_block, p.max_block_dim[0], p.max_block_dim[1], p.max_block_dim[2],
                  p.shared_mem_per_block / 1024, p.shared_mem_per_block_optin / 1024, p.regs_per_block,
                  p.max_grid_dim[0], p.max_grid_dim[1], p.max_grid_dim[2], p.max_threads_per_multiprocessor,
                  p.max_blocks_per_multiprocessor, p.shared_mem_per_multiprocessor / 1024, p.regs_per_multiprocessor,
                  p.warp_size, p.clock_rate_khz / 1e3);
        sb_printf(&h,
                  "<tr><td>%d%s</td><td>%s</td><td>%d.%d</td><td>%d</td><td>%.1f / %s GiB</td><td>%d-bit</td>"
                  "<td>%.0f GB/s</td><td>%.0f MiB</td><td>%d</td><td>%d KiB (%d KiB)</td><td>%d</td><td>%d</td>"
                  "<td>%d KiB</td><td>%.0f MHz</td></tr>",
                  d, d == cur ? " (current)" : "", p.name, p.major, p.minor, p.multiprocessor_count,
                  p.total_mem / 1073741824.0, fbuf, p.memory_bus_width, bw, p.l2_cache_size / 1048576.0,
                  p.max_threads_per_block, p.shared_mem_per_block / 1024, p.shared_mem_per_block_optin / 1024,
                  p.regs_per_block, p.max_threads_per_multiprocessor, p.shared_mem_per_multiprocessor / 1024,
                  p.clock_rate_khz / 1e3);
    }
    sb_puts(&h, "</tbody></table>");
    if (n > 1) peer_matrix(g, n, &t, &h);
    char *plain = sb_take(&t), *html = sb_take(&h);
    io_display_text(mc->io, plain, html);
    free(plain);
    free(html);
    return 0;
}

static int device_line(magic_ctx_t *mc, const char *args, cell_error_t *err) {
    char **argv;
    int argc = magic_split_args(args, &argv);
    char why[600];
    if (argc == 0) {
        magic_free_args(argv, argc);
        gpu_client_t *g = cuda_session_client(mc->cuda, why, sizeof why);
        if (!g) return no_gpu(err, 0, why);
        io_printf(mc->io, "stdout", "current device: %d\n", gpu_client_get_device(g));
        return 0;
    }
    char *end;
    long d = strtol(argv[0], &end, 10);
    bool bad = argc != 1 || *end || d < 0;
    magic_free_args(argv, argc);
    if (bad) return magic_usage_error(&magic_device, err, "expected one device number");
    int r = cuda_session_set_device(mc->cuda, (int)d, why, sizeof why);
    if (r) return no_gpu(err, r, why);
    gpu_props_t p;
    gpu_client_t *g = cuda_session_client(mc->cuda, why, sizeof why);
    if (g && !gpu_client_device_props(g, (int)d, &p))
        io_printf(mc->io, "stdout", "device %ld is current: %s (compute capability %d.%d)\n", d, p.name, p.major, p.minor);
    return 0;
}

const magic_t magic_devices = {"devices", "%devices", "list the GPUs: memory, bandwidth, limits, versions",
                               "Every GPU the worker sees, with name, compute capability, SMs, memory total/free, "
                               "bus width and the peak bandwidth it gives, L2, limits per block and per SM, "
                               "driver and runtime versions. The current device is marked. With several GPUs, the "
                               "peer matrix: which GPU can reach which one's memory (cudaDeviceCanAccessPeer), over "
                               "what link (NVLink with its link count, or PCIe and how far apart, from the driver's "
                               "NVML), the driver's performance rank and native atomics, and whether this session "
                               "enabled the access (cudaDeviceEnablePeerAccess).",
                               devices_line, NULL};
const magic_t magic_device = {"device", "%device [N]", "show or set the current GPU (like cudaSetDevice)",
                              "%device N makes GPU N current for later allocations and launches; buffers stay on "
                              "the device they were allocated on.",
                              device_line, NULL};
