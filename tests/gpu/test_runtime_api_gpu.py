"""The whole CUDA runtime API on a GPU (make test-gpu), a family each: memory
(pitched, 2-D and 3-D, stream-ordered allocation, registered host memory,
peer copies on one device), device management, streams and events (waits,
priorities, host functions), execution control (64 KB of dynamic shared
memory after cudaFuncSetAttribute), occupancy, graphs (a captured stream
replayed 100 times) and peer access. Each cell checks its own results on
the host, as a CUDA program would. Each test has a kernel of its own: what
they set (limits, cache configuration, peer access) is the device's and
outlives %reset."""
from support import err, kernel, needs_gpu, ok, stdout_of


CHECK = """#define CHECK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \\
    printf("%s failed: %s\\n", #call, cudaGetErrorString(e_)); assert(0); } } while (0)"""

KERNELS = """__global__ void scale2d(float *d, size_t pitch, int w, int h) {
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
    if (x < w && y < h) { float *row = (float *)((char *)d + y * pitch); row[x] *= 2.0f; }
}
__global__ void fill(int *a, int v, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) a[i] = v; }
__global__ void add_one(float *x, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) x[i] += 1.0f; }
__global__ void read_mapped(const float *h, float *d, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) d[i] = h[i] + 1.0f;
}
__global__ void slow_set(int *a, int v, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) { long long t0 = clock64(); while (clock64() - t0 < 100000) {} a[i] = v; }
}
__global__ void copy_plus(const int *a, int *b, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) b[i] = a[i] + 1; }
__global__ void big_smem(float *out) {
    extern __shared__ float sh[];
    int n = 64 * 1024 / sizeof(float);
    for (int i = threadIdx.x; i < n; i += blockDim.x) sh[i] = i;
    __syncthreads();
    if (threadIdx.x == 0) out[0] = sh[n - 1] + sh[1];
}
__global__ void reduce(const float *x, float *out, int n) {
    extern __shared__ float s[];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    s[threadIdx.x] = i < n ? x[i] : 0;
    __syncthreads();
    for (int k = blockDim.x / 2; k > 0; k >>= 1) { if (threadIdx.x < k) s[threadIdx.x] += s[threadIdx.x + k]; __syncthreads(); }
    if (threadIdx.x == 0) atomicAdd(out, s[0]);
}"""


@needs_gpu
def test_memory_pitched_2d_3d_async_registered_peer():
    with kernel() as k:
        ok(k, CHECK)
        ok(k, KERNELS)
        # cudaMallocPitch + cudaMemcpy2D, both ways, around a kernel on the pitched rows
        out = stdout_of(ok(k, """int W = 100, H = 37;
size_t pitch = 0;
float *d2; CHECK(cudaMallocPitch((void **)&d2, &pitch, W * sizeof(float), H));
assert(pitch >= W * sizeof(float) && pitch % 256 == 0);
float *h2 = (float *)malloc(W * H * sizeof(float)), *back2 = (float *)malloc(W * H * sizeof(float));
for (int i = 0; i < W * H; i++) h2[i] = i;
CHECK(cudaMemcpy2D(d2, pitch, h2, W * sizeof(float), W * sizeof(float), H, cudaMemcpyHostToDevice));
scale2d<<<dim3(1, H), 128>>>(d2, pitch, W, H);
CHECK(cudaMemcpy2D(back2, W * sizeof(float), d2, pitch, W * sizeof(float), H, cudaMemcpyDeviceToHost));
for (int i = 0; i < W * H; i++) assert(back2[i] == 2.0f * i);
CHECK(cudaMemset2D(d2, pitch, 0, W * sizeof(float), H));
CHECK(cudaMemcpy2DAsync(back2, W * sizeof(float), d2, pitch, W * sizeof(float), H, cudaMemcpyDeviceToHost, 0));
CHECK(cudaDeviceSynchronize());
for (int i = 0; i < W * H; i++) assert(back2[i] == 0.0f);
printf("pitched ok %zu\\n", pitch);"""))
        assert "pitched ok" in out, out
        # one row too many: refused before anything is sent, back2 untouched
        ok(k, "back2[0] = 42;")
        e, v = err(k, "cudaMemcpy2D(back2, W * sizeof(float), d2, pitch, W * sizeof(float), H + 1, "
                      "cudaMemcpyDeviceToHost);")
        assert e == "cudaErrorInvalidValue" and "into back2" in v and "38 rows" in v, v
        e, v = err(k, "cudaMemcpy2D(back2, W * sizeof(float), d2, pitch, W * sizeof(float), H + 1, "
                      "cudaMemcpyHostToDevice);")
        assert e == "cudaErrorInvalidValue", v
        assert stdout_of(ok(k, 'printf("%g\\n", back2[0]);')) == "42\n"
        # cudaMalloc3D + cudaMemcpy3D there and back
        out = stdout_of(ok(k, """cudaExtent ext = make_cudaExtent(16 * sizeof(float), 8, 4);
cudaPitchedPtr dp; CHECK(cudaMalloc3D(&dp, ext));
assert(dp.pitch >= 64 && dp.xsize == 64 && dp.ysize == 8);
float *h3 = (float *)malloc(16 * 8 * 4 * sizeof(float)), *b3 = (float *)calloc(16 * 8 * 4, sizeof(float));
for (int i = 0; i < 16 * 8 * 4; i++) h3[i] = 0.5f * i;
cudaMemcpy3DParms up = {0};
up.srcPtr = make_cudaPitchedPtr(h3, 16 * sizeof(float), 16, 8); up.dstPtr = dp; up.extent = ext;
up.kind = cudaMemcpyHostToDevice;
CHECK(cudaMemcpy3D(&up));
cudaMemcpy3DParms down = {0};
down.srcPtr = dp; down.dstPtr = make_cudaPitchedPtr(b3, 16 * sizeof(float), 16, 8); down.extent = ext;
down.kind = cudaMemcpyDeviceToHost;
CHECK(cudaMemcpy3D(&down));
for (int i = 0; i < 16 * 8 * 4; i++) assert(b3[i] == 0.5f * i);
CHECK(cudaMemset3D(dp, 0, ext));
CHECK(cudaMemcpy3DAsync(&down, 0)); CHECK(cudaDeviceSynchronize());
for (int i = 0; i < 16 * 8 * 4; i++) assert(b3[i] == 0.0f);
CHECK(cudaFree(dp.ptr));
printf("3d ok\\n");"""))
        assert "3d ok" in out, out
        # stream-ordered allocation: memory known to host code (a device buffer), freed in stream order
        out = stdout_of(ok(k, """cudaStream_t s; CHECK(cudaStreamCreate(&s));
int *a = 0; CHECK(cudaMallocAsync((void **)&a, 1024 * sizeof(int), s));
fill<<<4, 256, 0, s>>>(a, 7, 1024);
int hb[1024];
CHECK(cudaMemcpyAsync(hb, a, sizeof hb, cudaMemcpyDeviceToHost, s));
CHECK(cudaFreeAsync(a, s));
CHECK(cudaStreamSynchronize(s));
for (int i = 0; i < 1024; i++) assert(hb[i] == 7);
cudaMemPool_t pool; CHECK(cudaDeviceGetDefaultMemPool(&pool, 0));
int *b = 0; CHECK(cudaMallocFromPoolAsync((void **)&b, 4096, pool, s));
printf("async ok\\n");"""))
        assert "async ok" in out, out
        e, v = err(k, "b[0]")  # a device buffer host code knows: reading it on the host is refused
        assert "device" in v, v
        ok(k, "CHECK(cudaFreeAsync(b, s)); CHECK(cudaStreamSynchronize(s));")
        e, v = err(k, "cudaFreeAsync(b, s);")  # freed already: known as freed
        assert e == "cudaErrorInvalidValue", (e, v)
        # cudaHostRegister of a malloc'd buffer: pinned copies and a mapped pointer for kernels
        out = stdout_of(ok(k, """int M = 1 << 18;
float *hr = (float *)malloc(M * sizeof(float)), *hback = (float *)malloc(M * sizeof(float));
for (int i = 0; i < M; i++) hr[i] = i;
CHECK(cudaHostRegister(hr, M * sizeof(float), cudaHostRegisterMapped));
unsigned int flags = 0; CHECK(cudaHostGetFlags(&flags, hr)); assert(flags & cudaHostRegisterMapped);
float *dr; CHECK(cudaMalloc(&dr, M * sizeof(float)));
CHECK(cudaMemcpy(dr, hr, M * sizeof(float), cudaMemcpyHostToDevice));
CHECK(cudaMemcpy(hback, dr, M * sizeof(float), cudaMemcpyDeviceToHost));
for (int i = 0; i < M; i++) assert(hback[i] == i);
float *mapped = 0; CHECK(cudaHostGetDevicePointer((void **)&mapped, hr, 0));
read_mapped<<<(M + 255) / 256, 256>>>(mapped, dr, M);
CHECK(cudaMemcpy(hback, dr, M * sizeof(float), cudaMemcpyDeviceToHost));
for (int i = 0; i < M; i++) assert(hback[i] == i + 1.0f);
CHECK(cudaHostUnregister(hr));
assert(cudaHostUnregister(hr) == cudaErrorHostMemoryNotRegistered);
printf("registered ok %u\\n", flags);"""))
        assert "registered ok" in out, out
        # peer copies where there is one device: device 0 to device 0
        out = stdout_of(ok(k, """float *p1, *p2; CHECK(cudaMalloc(&p1, 4096)); CHECK(cudaMalloc(&p2, 4096));
CHECK(cudaMemcpy(p1, hr, 4096, cudaMemcpyHostToDevice));
CHECK(cudaMemcpyPeer(p2, 0, p1, 0, 4096));
CHECK(cudaMemcpyPeerAsync(p1, 0, p2, 0, 4096, 0));
CHECK(cudaMemcpy(hback, p1, 4096, cudaMemcpyDeviceToHost));
for (int i = 0; i < 1024; i++) assert(hback[i] == i);
printf("peer copy ok\\n");"""))
        assert "peer copy ok" in out, out


@needs_gpu
def test_device_management():
    with kernel() as k:
        ok(k, CHECK)
        # limits first: the printf FIFO and the malloc heap are set before any kernel runs
        out = stdout_of(ok(k, """size_t lim = 0;
CHECK(cudaDeviceSetLimit(cudaLimitPrintfFifoSize, 4 << 20));
CHECK(cudaDeviceGetLimit(&lim, cudaLimitPrintfFifoSize)); assert(lim >= (4 << 20));
CHECK(cudaDeviceSetLimit(cudaLimitMallocHeapSize, 64 << 20));
CHECK(cudaDeviceGetLimit(&lim, cudaLimitMallocHeapSize)); assert(lim >= (64 << 20));
int sms = 0, memclk = 0, major = 0;
CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
CHECK(cudaDeviceGetAttribute(&memclk, cudaDevAttrMemoryClockRate, 0));
CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, 0));
cudaDeviceProp p; CHECK(cudaGetDeviceProperties(&p, 0));
assert(sms == p.multiProcessorCount && major == p.major && memclk > 0 && p.l2CacheSize > 0);
assert(p.totalGlobalMem > (1ul << 30) && p.sharedMemPerBlockOptin > 48 * 1024 && p.warpSize == 32);
CHECK(cudaDeviceSetCacheConfig(cudaFuncCachePreferShared));
enum cudaFuncCache cc; CHECK(cudaDeviceGetCacheConfig(&cc));
CHECK(cudaDeviceSetSharedMemConfig(cudaSharedMemBankSizeFourByte));
int lo = 1, hi = 1; CHECK(cudaDeviceGetStreamPriorityRange(&lo, &hi)); assert(lo == 0 && hi < 0);
char bus[32]; CHECK(cudaDeviceGetPCIBusId(bus, sizeof bus, 0));
int again = -1; CHECK(cudaDeviceGetByPCIBusId(&again, bus)); assert(again == 0);
int rt = 0; CHECK(cudaRuntimeGetVersion(&rt)); assert(rt >= 13000);
printf("%s sms %d memclk %d name %s bus %s\\n", "device ok", sms, memclk, p.name, bus);"""))
        assert "device ok" in out, out
        # the device printf FIFO still works after the limit changed
        ok(k, '__global__ void hello() { printf("hi from %d\\n", threadIdx.x); }')
        assert "hi from 0" in stdout_of(ok(k, "hello<<<1, 1>>>(); CHECK(cudaDeviceSynchronize());"))


@needs_gpu
def test_streams_events_priorities_host_functions():
    with kernel() as k:
        ok(k, CHECK)
        ok(k, KERNELS)
        out = stdout_of(ok(k, """int n = 1 << 16;
int *ab, *bb; CHECK(cudaMalloc(&ab, n * sizeof(int))); CHECK(cudaMalloc(&bb, n * sizeof(int)));
CHECK(cudaMemset(ab, 0, n * sizeof(int)));
int lo, hi; CHECK(cudaDeviceGetStreamPriorityRange(&lo, &hi));
cudaStream_t s1, s2; CHECK(cudaStreamCreate(&s1));
CHECK(cudaStreamCreateWithPriority(&s2, cudaStreamNonBlocking, hi));
int prio = 99; CHECK(cudaStreamGetPriority(s2, &prio)); assert(prio == hi);
unsigned int fl = 0; CHECK(cudaStreamGetFlags(s2, &fl)); assert(fl == cudaStreamNonBlocking);
cudaEvent_t done; CHECK(cudaEventCreateWithFlags(&done, cudaEventDisableTiming));
slow_set<<<n / 256, 256, 0, s1>>>(ab, 5, n);
CHECK(cudaEventRecord(done, s1));
CHECK(cudaStreamWaitEvent(s2, done, 0));     /* s2 waits for s1's slow kernel */
copy_plus<<<n / 256, 256, 0, s2>>>(ab, bb, n);
int *hb = (int *)malloc(n * sizeof(int));
CHECK(cudaMemcpyAsync(hb, bb, n * sizeof(int), cudaMemcpyDeviceToHost, s2));
CHECK(cudaStreamSynchronize(s2));
for (int i = 0; i < n; i++) assert(hb[i] == 6);
printf("wait ok\\n");"""))
        assert "wait ok" in out, out
        # host functions run in order with the stream's work, in the kernel process
        ok(k, """void CUDART_CB bump(void *p) { (*(int *)p)++; }
void CUDART_CB status_cb(cudaStream_t st, cudaError_t status, void *p) { *(int *)p = (int)status; }""")
        out = stdout_of(ok(k, """int hits = 0, seen = -1;
int *flag_d; CHECK(cudaMalloc(&flag_d, sizeof(int)));
fill<<<1, 1, 0, s1>>>(flag_d, 3, 1);
CHECK(cudaLaunchHostFunc(s1, bump, &hits));
CHECK(cudaStreamAddCallback(s1, status_cb, &seen, 0));
CHECK(cudaLaunchHostFunc(s1, bump, &hits));
CHECK(cudaStreamSynchronize(s1));
assert(hits == 2 && seen == 0);
printf("host functions ok\\n");"""))
        assert "host functions ok" in out, out
        # a host function cannot go into a captured graph: said so, and the capture goes on
        ok(k, "CHECK(cudaStreamBeginCapture(s1, cudaStreamCaptureModeGlobal));")
        e, v = err(k, "cudaLaunchHostFunc(s1, bump, &hits);")
        assert e == "cudaErrorStreamCaptureUnsupported" and "interpreted code" in v, v
        ok(k, "cudaGraph_t g0; CHECK(cudaStreamEndCapture(s1, &g0)); CHECK(cudaGraphDestroy(g0));")
        ok(k, "CHECK(cudaStreamDestroy(s1)); CHECK(cudaStreamDestroy(s2)); CHECK(cudaEventDestroy(done));")


@needs_gpu
def test_execution_control_64k_dynamic_shared_memory():
    with kernel() as k:
        ok(k, CHECK)
        ok(k, KERNELS)
        ok(k, "float *o; CHECK(cudaMalloc(&o, sizeof(float))); float ho = 0;")
        # without the opt-in, 64 KB is refused before the launch, and the message says how to opt in
        e, v = err(k, "big_smem<<<1, 256, 64 * 1024>>>(o);")
        assert e == "cudaErrorInvalidValue" and "cudaFuncAttributeMaxDynamicSharedMemorySize" in v, v
        out = stdout_of(ok(k, """CHECK(cudaFuncSetAttribute(big_smem, cudaFuncAttributeMaxDynamicSharedMemorySize, 64 * 1024));
big_smem<<<1, 256, 64 * 1024>>>(o);
CHECK(cudaGetLastError());
CHECK(cudaMemcpy(&ho, o, sizeof ho, cudaMemcpyDeviceToHost));
assert(ho == 16383.0f + 1.0f);
cudaFuncAttributes fa; CHECK(cudaFuncGetAttributes(&fa, big_smem));
assert(fa.maxDynamicSharedSizeBytes == 64 * 1024 && fa.maxThreadsPerBlock > 0 && fa.numRegs > 0);
CHECK(cudaFuncSetCacheConfig(big_smem, cudaFuncCachePreferShared));
CHECK(cudaFuncSetAttribute(big_smem, cudaFuncAttributePreferredSharedMemoryCarveout, 100));
size_t off = 99, sz = 0; CHECK(cudaFuncGetParamInfo(big_smem, 0, &off, &sz)); assert(off == 0 && sz == 8);
const char *nm = 0; CHECK(cudaFuncGetName(&nm, big_smem)); assert(strcmp(nm, "big_smem") == 0);
printf("smem ok %g\\n", ho);"""))
        assert "smem ok 16384" in out, out
        # beyond what the GPU allows: CUDA's error
        e, v = err(k, "cudaFuncSetAttribute(big_smem, cudaFuncAttributeMaxDynamicSharedMemorySize, 1 << 20);")
        assert e == "cudaErrorInvalidValue", v


@needs_gpu
def test_occupancy_all_of_it():
    with kernel() as k:
        ok(k, CHECK)
        ok(k, KERNELS)
        ok(k, "size_t smem_for(int block) { return block * sizeof(float); }")
        out = stdout_of(ok(k, """int nb = 0, nb2 = 0, mg = 0, bs = 0, mg2 = 0, bs2 = 0;
CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&nb, add_one, 256, 0));
CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(&nb2, add_one, 256, 0, cudaOccupancyDefault));
assert(nb > 0 && nb == nb2);
size_t dyn = 0; CHECK(cudaOccupancyAvailableDynamicSMemPerBlock(&dyn, reduce, 1, 256)); assert(dyn == 48 * 1024);
CHECK(cudaFuncSetAttribute(reduce, cudaFuncAttributeMaxDynamicSharedMemorySize, 100 * 1024));
CHECK(cudaOccupancyAvailableDynamicSMemPerBlock(&dyn, reduce, 1, 256)); assert(dyn == 100 * 1024);
CHECK(cudaFuncSetAttribute(reduce, cudaFuncAttributeMaxDynamicSharedMemorySize, 48 * 1024));
CHECK(cudaOccupancyMaxPotentialBlockSize(&mg, &bs, add_one, 0, 0)); assert(mg > 0 && bs > 0);
CHECK(cudaOccupancyMaxPotentialBlockSizeWithFlags(&mg2, &bs2, add_one, 0, 0, cudaOccupancyDefault));
assert(mg2 == mg && bs2 == bs);
CHECK(cudaOccupancyMaxPotentialBlockSizeVariableSMem(&mg, &bs, reduce, smem_for, 0)); assert(mg > 0 && bs >= 32);
CHECK(cudaOccupancyMaxPotentialBlockSizeVariableSMemWithFlags(&mg2, &bs2, reduce, smem_for, 512, 0));
assert(bs2 <= 512 && bs2 > 0);
cudaLaunchConfig_t cfg = {0};
cfg.gridDim.x = 64; cfg.gridDim.y = 1; cfg.gridDim.z = 1;
cfg.blockDim.x = 128; cfg.blockDim.y = 1; cfg.blockDim.z = 1;
cudaLaunchAttribute at[1];
at[0].id = cudaLaunchAttributeClusterDimension;
at[0].val.clusterDim.x = 2; at[0].val.clusterDim.y = 1; at[0].val.clusterDim.z = 1;
cfg.attrs = at; cfg.numAttrs = 1;
int csz = 0, ncl = 0;
CHECK(cudaOccupancyMaxPotentialClusterSize(&csz, add_one, &cfg)); assert(csz >= 2);
CHECK(cudaOccupancyMaxActiveClusters(&ncl, add_one, &cfg)); assert(ncl > 0);
printf("occupancy ok %d %d %d %zu %d %d\\n", nb, mg, bs, dyn, csz, ncl);"""))
        assert "occupancy ok" in out, out


@needs_gpu
def test_graph_captured_and_replayed_100_times():
    with kernel() as k:
        ok(k, CHECK)
        ok(k, KERNELS)
        out = stdout_of(ok(k, """int N = 1 << 20;
float *g; CHECK(cudaMalloc(&g, N * sizeof(float))); CHECK(cudaMemset(g, 0, N * sizeof(float)));
cudaStream_t cs; CHECK(cudaStreamCreateWithFlags(&cs, cudaStreamNonBlocking));
cudaGraph_t graph; cudaGraphExec_t exec;
CHECK(cudaStreamBeginCapture(cs, cudaStreamCaptureModeGlobal));
enum cudaStreamCaptureStatus st; CHECK(cudaStreamIsCapturing(cs, &st)); assert(st == cudaStreamCaptureStatusActive);
add_one<<<(N + 255) / 256, 256, 0, cs>>>(g, N);
add_one<<<(N + 255) / 256, 256, 0, cs>>>(g, N);
CHECK(cudaStreamEndCapture(cs, &graph));
size_t nodes = 0; CHECK(cudaGraphGetNodes(graph, NULL, &nodes)); assert(nodes == 2);
CHECK(cudaGraphInstantiate(&exec, graph, 0));
for (int i = 0; i < 100; i++) CHECK(cudaGraphLaunch(exec, cs));
CHECK(cudaStreamSynchronize(cs));
float *hg = (float *)malloc(N * sizeof(float));
CHECK(cudaMemcpy(hg, g, N * sizeof(float), cudaMemcpyDeviceToHost));
for (int i = 0; i < N; i++) assert(hg[i] == 200.0f);
CHECK(cudaGraphExecDestroy(exec)); CHECK(cudaGraphDestroy(graph));
printf("graph ok %zu\\n", nodes);"""))
        assert "graph ok 2" in out, out
        # a capture may span cells: the end of a cell does not synchronise it away
        ok(k, "CHECK(cudaStreamBeginCapture(cs, cudaStreamCaptureModeGlobal));")
        ok(k, "add_one<<<(N + 255) / 256, 256, 0, cs>>>(g, N);")
        out = stdout_of(ok(k, """cudaGraph_t g2; cudaGraphExec_t e2;
CHECK(cudaStreamEndCapture(cs, &g2)); CHECK(cudaGraphInstantiate(&e2, g2, 0));
CHECK(cudaGraphLaunch(e2, cs)); CHECK(cudaStreamSynchronize(cs));
CHECK(cudaMemcpy(hg, g, N * sizeof(float), cudaMemcpyDeviceToHost));
assert(hg[N - 1] == 201.0f);
printf("graph across cells ok\\n");"""))
        assert "graph across cells ok" in out, out


@needs_gpu
def test_peer_access_between_gpus():
    """With two GPUs that can reach each other: a kernel on device 0 scales
    device 1's buffer, and peer copies both ways. With one: can is 0."""
    with kernel() as k:
        ok(k, CHECK)
        out = stdout_of(ok(k, """int ndev = 0, can01 = 0; CHECK(cudaGetDeviceCount(&ndev));
if (ndev > 1) CHECK(cudaDeviceCanAccessPeer(&can01, 0, 1));
printf("%d %d\\n", ndev, can01);"""))
        ndev, can = map(int, out.split())
        if ndev < 2 or not can:
            print("no pair of GPUs with peer access here: peer access across GPUs not exercised")
            return
        ok(k, """__global__ void twice(float *x, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) x[i] *= 2; }""")
        out = stdout_of(ok(k, """int n = 1 << 16;
float *h = (float *)malloc(n * sizeof(float)), *back = (float *)malloc(n * sizeof(float));
for (int i = 0; i < n; i++) h[i] = i;
float *on1, *on0;
CHECK(cudaSetDevice(1)); CHECK(cudaMalloc(&on1, n * sizeof(float)));
CHECK(cudaMemcpy(on1, h, n * sizeof(float), cudaMemcpyHostToDevice));
CHECK(cudaSetDevice(0)); CHECK(cudaMalloc(&on0, n * sizeof(float)));
CHECK(cudaDeviceEnablePeerAccess(1, 0));
assert(cudaDeviceEnablePeerAccess(1, 0) == cudaErrorPeerAccessAlreadyEnabled);
twice<<<n / 256, 256>>>(on1, n);            /* device 0 writes device 1's memory */
CHECK(cudaDeviceSynchronize());
CHECK(cudaMemcpyPeer(on0, 0, on1, 1, n * sizeof(float)));
CHECK(cudaMemcpy(back, on0, n * sizeof(float), cudaMemcpyDeviceToHost));
for (int i = 0; i < n; i++) assert(back[i] == 2.0f * i);
float *more; CHECK(cudaSetDevice(1)); CHECK(cudaMalloc(&more, n * sizeof(float))); CHECK(cudaSetDevice(0));
twice<<<n / 256, 256>>>(more, n);           /* mapped after the grant: reachable too */
CHECK(cudaDeviceSynchronize());
CHECK(cudaDeviceDisablePeerAccess(1));
printf("peer ok\\n");"""))
        assert "peer ok" in out, out
        e, v = err(k, "twice<<<n / 256, 256>>>(on1, n);")  # no longer reachable: refused before the launch
        assert e == "cudaErrorInvalidDevicePointer", (e, v)


@needs_gpu
def test_peer_access_on_one_gpu():
    with kernel() as k:
        out = stdout_of(ok(k, """int n = 0, can = -1; cudaGetDeviceCount(&n);
assert(cudaDeviceCanAccessPeer(&can, 0, 0) == cudaSuccess && can == 0);
printf("peer %d %d\\n", n, can);"""))
        assert "peer" in out, out
