"""The whole CUDA runtime API in host code, without a GPU (CI): the toolkit's
types and constants (read from its headers; tests/unit/test_cuda_api.c
compares every layout with gcc's), the checks that come before anything
reaches the GPU (2-D and 3-D extents, argument types against the header's
prototype), and the clear refusal of the families icuda does not support."""
import support
from support import err, ok, run, shared_kernel, stdout_of


def test_toolkit_types_and_constants():
    with shared_kernel() as k:
        out = support.stdout_of(ok(k, """float4 f = make_float4(1, 2, 3, 4);
struct { float a; float4 b; } s;
cudaExtent e = make_cudaExtent(64, 8, 2);
cudaPitchedPtr pp = make_cudaPitchedPtr(0, 512, 64, 8);
printf("%zu %zu %zu %g %zu %zu\\n", sizeof(float4), _Alignof(float4), sizeof s, f.w, e.depth, pp.pitch);
printf("%d %d %d %d\\n", cudaDevAttrMultiProcessorCount, cudaDevAttrMemoryClockRate, cudaLimitPrintfFifoSize,
       cudaFuncAttributeMaxDynamicSharedMemorySize);
printf("%zu %zu %d\\n", sizeof(cudaDeviceProp), sizeof(cudaFuncAttributes), CUDART_VERSION >= 13000);
printf("%zu %zu %zu\\n", sizeof(dim3), sizeof(double2), sizeof(cudaLaunchAttribute));"""))
        assert out.splitlines() == ["16 16 32 4 2 512", "16 36 1 8", "1008 144 1", "12 16 72"], out
        # CUDA 13 removed the clock rates from cudaDeviceProp: cudaDeviceGetAttribute has them
        e, v = err(k, "cudaDeviceProp p; p.memoryClockRate")
        assert e == "TypeError" and "memoryClockRate" in v, v
        ok(k, "cudaStream_t st = cudaStreamPerThread; cudaGraph_t g = 0; cudaGraphExec_t ge = 0; "
              "cudaMemPool_t pool = 0; cudaTextureObject_t tex = 0; enum cudaStreamCaptureMode m = "
              "cudaStreamCaptureModeGlobal;")


def test_channel_descriptors_of_a_type_and_of_numbers():
    """cudaCreateChannelDesc<T>() as cuda_runtime.h has it: a number's or a
    vector type's channels; the five-number form stands beside it."""
    with shared_kernel() as k:
        out = support.stdout_of(ok(k, """cudaChannelFormatDesc a = cudaCreateChannelDesc<float>();
cudaChannelFormatDesc b = cudaCreateChannelDesc<uchar4>(), c = cudaCreateChannelDesc<int2>();
cudaChannelFormatDesc d = cudaCreateChannelDesc<unsigned short>();
cudaChannelFormatDesc e = cudaCreateChannelDesc(8, 8, 0, 0, cudaChannelFormatKindSigned);
printf("%d %d %d %d %d|%d %d %d %d %d|%d %d %d %d|%d %d|%d %d %d\\n", a.x, a.y, a.z, a.w, (int)a.f, b.x, b.y, b.z,
       b.w, (int)b.f, c.x, c.y, c.z, (int)c.f, d.x, (int)d.f, e.x, e.y, (int)e.f);"""))
        assert out == "32 0 0 0 2|8 8 8 8 1|32 32 0 0|16 1|8 8 0\n", out
        e, v = err(k, "struct mixed { float a; int b; };\ncudaCreateChannelDesc<mixed>();")
        assert e == "TypeError" and "vector type of up to four numbers" in v, v


def test_2d_copies_are_checked_before_the_gpu():
    with shared_kernel() as k:
        ok(k, "float h[100]; char small[10];")
        # 11 rows of 10 bytes, 40 bytes apart: the last row ends at byte 410 of a 400-byte array
        e, v = err(k, "cudaMemcpy2D(h, 40, small, 10, 10, 11, cudaMemcpyHostToHost);")
        assert e == "cudaErrorInvalidValue" and "writing 410 bytes into h" in v and "11 rows of 10 bytes, 40 bytes " \
            "apart" in v and "400 bytes" in v, v
        e, v = err(k, "cudaMemcpy2D(h, 40, small, 10, 10, 2, cudaMemcpyHostToHost);")
        assert e == "cudaErrorInvalidValue" and "reading 20 bytes from small" in v, v
        e, v = err(k, "cudaMemcpy2D(h, 8, small, 10, 10, 1, cudaMemcpyHostToHost);")
        assert e == "cudaErrorInvalidPitchValue" and "wider than the pitch" in v, v
        e, v = err(k, "cudaMemcpy2D(h, 40, small, 10, 10, 1, cudaMemcpyDeviceToHost);")
        assert e == "cudaErrorInvalidValue" and "small (the source) is host memory" in v, v
        e, v = err(k, "cudaMemcpy2DAsync(h, 40, small, 10, -10, 1, cudaMemcpyHostToHost, 0);")
        assert e == "cudaErrorInvalidValue" and "negative" in v, v
        e, v = err(k, "cudaMemcpy2D(h, 40, small, 10, 10, 1);")
        assert e == "cudaErrorInvalidValue" and "takes 7 arguments" in v, v
        e, v = err(k, "cudaMemset2D(h, 40, 0, 10, 2);")
        assert e == "cudaErrorInvalidValue" and "fills device memory" in v, v
        e, v = err(k, "cudaMemcpy2DToArray(0, 0, 0, small, 10, 10, 3, cudaMemcpyHostToDevice);")
        assert e == "cudaErrorInvalidValue" and "reading 30 bytes from small" in v, v


def test_3d_copies_are_checked_before_the_gpu():
    with shared_kernel() as k:
        ok(k, """float src[4 * 8 * 2], dst[4 * 8 * 2];
cudaMemcpy3DParms p = {0};
p.srcPtr = make_cudaPitchedPtr(src, 4 * sizeof(float), 4, 8);
p.dstPtr = make_cudaPitchedPtr(dst, 4 * sizeof(float), 4, 8);
p.extent = make_cudaExtent(4 * sizeof(float), 8, 3);
p.kind = cudaMemcpyHostToHost;""")
        # three slices of 8 rows where the arrays hold two
        e, v = err(k, "cudaMemcpy3D(&p);")
        assert e == "cudaErrorInvalidValue" and "source region" in v and "16 x 8 x 3" in v and "384 bytes" in v, v
        e, v = err(k, "p.extent.depth = 2; p.srcPos.z = 1; cudaMemcpy3D(&p);")
        assert e == "cudaErrorInvalidValue" and "at (0, 0, 1)" in v, v
        e, v = err(k, "p.srcPos.z = 0; p.kind = cudaMemcpyHostToDevice; cudaMemcpy3D(&p);")
        assert e == "cudaErrorInvalidValue" and "destination is host memory" in v, v
        e, v = err(k, "cudaMemset3D(p.dstPtr, 0, p.extent);")
        assert e == "cudaErrorInvalidValue" and "fills device memory" in v, v
        e, v = err(k, "cudaMalloc3D(&p.srcPtr, 5);")
        assert e == "cudaErrorInvalidValue" and "must be a cudaExtent" in v, v


def test_forwarded_calls_check_their_arguments_against_the_prototype():
    with shared_kernel() as k:
        ok(k, "char c; int v; double d = 1; float *fp = (float *)malloc(8);")
        e, v = err(k, "cudaDeviceGetLimit((size_t *)&c, cudaLimitPrintfFifoSize);")
        assert e == "cudaErrorInvalidValue" and "argument 1 ((size_t *)&c)" in v and "1 byte" in v and \
            "cudaError_t cudaDeviceGetLimit(size_t *pValue, enum cudaLimit limit)" in v, v
        e, v = err(k, "cudaDeviceGetLimit(d, cudaLimitPrintfFifoSize);")
        assert e == "cudaErrorInvalidValue" and "takes a pointer" in v, v
        e, v = err(k, "cudaDeviceSetLimit(cudaLimitPrintfFifoSize, fp);")
        assert e == "cudaErrorInvalidValue" and "it is a pointer" in v and "size_t value" in v, v
        e, v = err(k, "cudaDeviceSetLimit(cudaLimitPrintfFifoSize);")
        assert e == "cudaErrorInvalidValue" and "takes 2 arguments, not 1" in v, v
        e, v = err(k, "cudaGraphLaunch(0, 5);")
        assert e == "cudaErrorInvalidResourceHandle" and "not a stream" in v, v
        e, v = err(k, "cudaGraphLaunch(fp, 0);")
        assert e == "cudaErrorInvalidValue" and "handle" in v, v
        e, v = err(k, "cudaStreamWaitEvent(0, 0, 0);")
        assert e == "cudaErrorInvalidResourceHandle" and "0 is not an event" in v, v
        # C++'s default arguments may be left out: flags of cudaStreamWaitEvent is 0
        e, v = err(k, "cudaStreamWaitEvent(0, 0);")
        assert e == "cudaErrorInvalidResourceHandle" and "0 is not an event" in v, v
        e, v = err(k, "cudaStreamWaitEvent(0);")
        assert e == "cudaErrorInvalidValue" and "takes 2 to 3 arguments, not 1" in v and "flags = 0" in v, v
        # arrays have room for the counts the call is given
        e, v = err(k, "cudaGraphNode_t nodes[2]; size_t nn = 5; cudaGraphGetNodes(0, nodes, &nn);")
        assert e == "cudaErrorInvalidValue" and "argument 2 (nodes) has room for 2 elements" in v and \
            "numNodes (argument 3) is 5" in v, v
        e, v = err(k, "char bus[4]; cudaDeviceGetPCIBusId(bus, 16, 0);")
        assert e == "cudaErrorInvalidValue" and "room for 4 bytes" in v and "len" in v, v
        e, v = err(k, "cudaGraphNode_t deps[1]; cudaGraphNode_t nd; cudaGraphAddEmptyNode(&nd, 0, deps, 3);")
        assert e == "cudaErrorInvalidValue" and "numDependencies (argument 4) is 3" in v, v
        if not support.GPU:  # no GPU here: a well-formed call says so
            e, v = err(k, "cudaDeviceGetAttribute(&v, cudaDevAttrMultiProcessorCount, 0);")
            assert e in ("cudaErrorInsufficientDriver", "cudaErrorNoDevice"), (e, v)


def test_refused_families_name_their_reason():
    with shared_kernel() as k:
        e, v = err(k, "cudaGraphicsMapResources(1, 0, 0);")
        assert e == "cudaErrorNotSupported" and "graphics interop" in v and "graphics context" in v, v
        e, v = err(k, "cudaIpcMemHandle_t h; cudaIpcGetMemHandle(&h, 0);")
        assert e == "cudaErrorNotSupported" and "inter-process" in v, v
        e, v = err(k, "cudaExternalMemory_t m; cudaImportExternalMemory(&m, 0);")
        assert e == "cudaErrorNotSupported" and "Vulkan" in v, v
        # what takes a C function pointer or a kernel's host stub, a native C++ cell can call: the cell runs so
        for call, family in (("cudaGetDriverEntryPoint(\"cuMemAlloc\", 0, 0, 0);", "driver entry points"),
                             ("cudaUserObject_t o; cudaUserObjectCreate(&o, 0, 0, 1, 0);",
                              "host callbacks run by the driver"),
                             ("cudaGraphAddKernelNode(0, 0, 0, 0, 0);", "kernel nodes built by hand")):
            c, msgs = run(k, call, t=300)
            assert f"runs as native C++ (nvcc, in the GPU worker): it calls {call.split('(')[0].split()[-1]} " \
                   f"({family}, line 1)" in stdout_of(msgs, "stderr"), msgs
            if not support.GPU:
                assert c["ename"] == "cudaErrorNoDevice", c
        # a kernel node by hand: its params name no host-stub address in icuda
        e, v = err(k, "cudaGraphNodeParams np = {0}; np.type = cudaGraphNodeTypeKernel; cudaGraphNode_t n; "
                      "cudaGraphAddNode(&n, 0, 0, 0, 0, &np);")
        assert e == "cudaErrorNotSupported" and "capture a launch" in v, v
        # a function the header does not have
        e, v = err(k, "cudaMemcpy4D(0);")
        assert e == "NameError" and "cuda_runtime_api.h of CUDA" in v, v


def test_host_functions_and_kernels_as_arguments():
    with shared_kernel() as k:
        ok(k, "int hits = 0;\nvoid CUDART_CB bump(void *p) { (*(int *)p)++; }")
        e, v = err(k, "cudaLaunchHostFunc(0, 0, &hits);")
        assert e == "cudaErrorInvalidValue" and "NULL" in v, v
        e, v = err(k, "cudaStreamAddCallback(0, bump, &hits, 1);")
        assert e == "cudaErrorInvalidValue" and "flags must be 0" in v, v
        e, v = err(k, "cudaFuncSetAttribute(hits, cudaFuncAttributeMaxDynamicSharedMemorySize, 1);")
        assert e == "cudaErrorInvalidValue" and "must name a kernel" in v, v
        e, v = err(k, "cudaFuncSetAttribute(nokernel, 99, 1);")
        assert e == "cudaErrorInvalidValue" and "not an attribute" in v, v
