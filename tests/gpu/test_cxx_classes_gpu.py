"""C++ host code with the GPU (make test-gpu): a GpuTimer class holding two
CUDA events, as courses write it, timing a kernel; std::vector's data() in
cudaMemcpy both ways, its size checks, and a vector's storage refused as a
kernel's device pointer."""
from support import kernel, needs_gpu, ok, stdout_of

SCALE = """__global__ void scale(float *x, float k, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] *= k;
}"""

TIMER = """struct GpuTimer {
    cudaEvent_t start, stop;
    GpuTimer() { cudaEventCreate(&start); cudaEventCreate(&stop); }
    ~GpuTimer() { cudaEventDestroy(start); cudaEventDestroy(stop); }
    void Start() { cudaEventRecord(start, 0); }
    void Stop() { cudaEventRecord(stop, 0); }
    float Elapsed() {
        float ms = 0;
        cudaEventSynchronize(stop);
        cudaEventElapsedTime(&ms, start, stop);
        return ms;
    }
};"""

RUN = """int N = 1 << 20;
std::vector<float> h(N, 2.0f);
float *d;
cudaMalloc(&d, N * sizeof(float));
cudaMemcpy(d, h.data(), N * sizeof(float), cudaMemcpyHostToDevice);
GpuTimer t;
t.Start();
scale<<<(N + 255) / 256, 256>>>(d, 3.0f, N);
t.Stop();
float ms = t.Elapsed();
cudaMemcpy(h.data(), d, N * sizeof(float), cudaMemcpyDeviceToHost);
std::cout << h[0] << " " << h[N - 1] << " " << (ms > 0.0f) << std::endl;"""


@needs_gpu
def test_gpu_timer_class_and_vector_copies():
    with kernel() as k:
        ok(k, SCALE)
        ok(k, TIMER)
        assert stdout_of(ok(k, RUN)) == "6 6 1\n"
        # a timer in a block: its destructor destroys the events at the block's end
        msgs = ok(k, "{\n    GpuTimer t2;\n    t2.Start();\n    scale<<<1, 32>>>(d, 1.0f, 32);\n    t2.Stop();\n"
                     "    printf(\"%d\\n\", t2.Elapsed() >= 0.0f);\n}\ncudaDeviceSynchronize();")
        assert stdout_of(msgs) == "1\n"
        # &h[0] is the same buffer
        ok(k, "cudaMemcpy(&h[0], d, 4 * sizeof(float), cudaMemcpyDeviceToHost);")
        # a copy larger than the vector's storage never reaches the GPU
        reply, _ = k.execute("cudaMemcpy(h.data(), d, 2 * N * sizeof(float), cudaMemcpyDeviceToHost);")
        assert reply["content"]["status"] == "error" and reply["content"]["ename"] == "cudaErrorInvalidValue", reply["content"]
        # the vector's storage is host memory: not a device pointer for a kernel
        reply, _ = k.execute("scale<<<1, 1>>>(h.data(), 1.0f, 1);")
        assert reply["content"]["status"] == "error", reply["content"]
        # re-running the timer cell's declaration destroys the old events first
        ok(k, "GpuTimer t;")
        ok(k, "cudaFree(d);")
