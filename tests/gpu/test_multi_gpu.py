"""Several GPUs (make test-gpu on a machine with two or more): cudaSetDevice
and %device move between them, buffers remember their device, and a launch
refuses a buffer of another device before anything reaches the GPU. On a
machine with one GPU the test says so and checks that device 1 is refused."""
from support import kernel, needs_gpu, run, stdout_of

SCALE = """__global__ void scale(float *x, float a, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] *= a;
}"""


@needs_gpu
def test_buffers_and_launches_per_device():
    with kernel() as k:
        c, msgs = run(k, "int ndev = 0;\ncudaGetDeviceCount(&ndev);\nprintf(\"%d\\n\", ndev);")
        assert c["status"] == "ok", c
        ndev = int(stdout_of(msgs).strip())
        if ndev < 2:
            print(f"one GPU here: multi-GPU paths not exercised")
            c, _ = run(k, "cudaSetDevice(1);")
            assert c["status"] == "error" and c["ename"] == "cudaErrorInvalidDevice", c
            return
        c, _ = run(k, SCALE)
        assert c["status"] == "ok", c
        setup = """int n = 1024;
float *h = (float *)malloc(n * sizeof(float));
for (int i = 0; i < n; i++) h[i] = i;
float *a, *b;
cudaSetDevice(0);
cudaMalloc(&a, n * sizeof(float));
cudaMemcpy(a, h, n * sizeof(float), cudaMemcpyHostToDevice);
cudaSetDevice(1);
cudaMalloc(&b, n * sizeof(float));
cudaMemcpy(b, h, n * sizeof(float), cudaMemcpyHostToDevice);
int cur = -1;
cudaGetDevice(&cur);
printf("current %d\\n", cur);"""
        c, msgs = run(k, setup)
        assert c["status"] == "ok", c
        assert "current 1" in stdout_of(msgs)
        # on device 1, a launch with device 0's buffer is refused
        c, _ = run(k, "scale<<<4, 256>>>(a, 2.0f, n);")
        assert c["status"] == "error", c
        assert "device 0" in c["evalue"] or "another device" in c["evalue"], c
        # each device runs the kernel on its own buffer
        c, msgs = run(k, """scale<<<4, 256>>>(b, 3.0f, n);
cudaMemcpy(h, b, n * sizeof(float), cudaMemcpyDeviceToHost);
printf("%g\\n", h[10]);""")
        assert c["status"] == "ok", c
        assert stdout_of(msgs).strip() == "30", stdout_of(msgs)
        c, msgs = run(k, """%device 0
for (int i = 0; i < n; i++) h[i] = i;
scale<<<4, 256>>>(a, 2.0f, n);
cudaMemcpy(h, a, n * sizeof(float), cudaMemcpyDeviceToHost);
printf("%g\\n", h[10]);""")
        assert c["status"] == "ok", c
        assert stdout_of(msgs).strip().endswith("20"), stdout_of(msgs)
