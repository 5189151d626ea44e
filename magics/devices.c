/* %devices and %device N: the GPUs the worker sees, and which
 * one is current. Asks the worker, never the driver in this process. */
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
                               "driver and runtime versions. The current device is marked.",
                               devices_line, NULL};
const magic_t magic_device = {"device", "%device [N]", "show or set the current GPU (like cudaSetDevice)",
                              "%device N makes GPU N current for later allocations and launches; buffers stay on "
                              "the device they were allocated on.",
                              device_line, NULL};
