"""What icuda must do behind a gateway, as a cluster's GPU node serves it,
driven through the gateway's REST and websocket API: each function is one
test, run by test_kernel_gateway.py and test_enterprise_gateway.py against
the gateway their module shares (gateways.shared), each with a kernel of
its own. No GPU needed."""
import os
import time

from gateways import Channels, RemoteKernel, alive, data_of, shared, stdout, wait_for, wait_new_kernel

import support

VEGALITE = "application/vnd.vegalite.v5+json"


def _with_log(gw, body):
    """Runs body(); on failure prints the gateway's log from the start of the
    test's latest kernel, and what that kernel's threads are doing."""
    gw.latest_kernel = None
    try:
        body()
    except BaseException:
        log, k = gw.log(), gw.latest_kernel
        start = log.find(k.id) if k is not None and getattr(k, "id", None) else -1
        start = log.rfind("\n", 0, start) + 1 if start >= 0 else max(0, len(log) - 6000)
        print("--- the gateway's log\n" + log[start:][:6000])
        if k is not None:
            print("--- the kernel now\n" + k.state())
        raise


def kernelspec(kind):
    """The gateway serves the kernelspec `icuda --install` wrote, unchanged,
    to a client with its token only, and the kernel it starts answers
    kernel_info."""
    gw = shared(kind)

    def body():
        status, answer = gw.api("GET", "/api/kernelspecs", token=None)
        assert status in (401, 403), (status, answer)
        status, specs = gw.api("GET", "/api/kernelspecs")
        assert status == 200, specs
        spec = specs["kernelspecs"]["icuda"]["spec"]
        assert spec["argv"][0] == os.path.abspath(support.PLAIN_KERNEL) and spec["language"] == "cuda", spec
        with RemoteKernel(gw) as k:
            reply, _ = k.ch.request("kernel_info_request", {})
            assert reply["implementation"] == "icuda" and reply["language_info"]["name"] == "cuda", reply
    _with_log(gw, body)


def execute(kind):
    """Host C (a stream, then a value of the session) and a device cell's
    compile error (NVRTC needs no GPU) come back through the gateway."""
    gw = shared(kind)

    def body():
        with RemoteKernel(gw) as k:
            reply, iopub = k.ch.execute('int n = 6;\nprintf("sum %d\\n", n * 7);')
            assert reply["status"] == "ok" and stdout(iopub) == "sum 42\n", (reply, iopub)
            reply, iopub = k.ch.execute("n * 2")
            assert data_of(iopub, "execute_result") == [{"text/plain": "(int) 12"}], iopub
            reply, iopub = k.ch.execute("__global__ void k(int *p) { p[0] = ; }")
            assert reply["status"] == "error", reply
            assert any(m["msg_type"] == "error" for m in iopub), iopub
    _with_log(gw, body)


def rich_output(kind):
    """%plot of host data: Vega-Lite with its SVG fallback, in one display_data."""
    gw = shared(kind)

    def body():
        with RemoteKernel(gw) as k:
            k.ch.execute("double xs[4] = {1, 2, 3, 4};\ndouble ys[4] = {1, 4, 9, 16};")
            reply, iopub = k.ch.execute("%plot --title squares xs ys")
            shown = data_of(iopub, "display_data")
            assert reply["status"] == "ok" and len(shown) == 1, (reply, iopub)
            assert VEGALITE in shown[0], shown[0].keys()
            assert shown[0]["image/svg+xml"].lstrip().startswith("<svg"), shown[0].keys()
    _with_log(gw, body)


def complete(kind):
    """complete_request offers the session's own names."""
    gw = shared(kind)

    def body():
        with RemoteKernel(gw) as k:
            k.ch.execute("int gateway_answer = 42;")
            reply, _ = k.ch.request("complete_request", {"code": "gateway_ans", "cursor_pos": 11})
            assert reply["status"] == "ok" and "gateway_answer" in reply["matches"], reply
    _with_log(gw, body)


def interrupt(kind):
    """The gateway's interrupt call ends a loop that never would; the
    session and the kernel stay."""
    gw = shared(kind)

    def body():
        with RemoteKernel(gw) as k:
            k.ch.execute("int n = 6;")

            def stop():
                time.sleep(1)
                status, answer = gw.api("POST", f"/api/kernels/{k.id}/interrupt")
                assert status == 204, (status, answer)
            reply, _ = k.ch.execute("long spins = 0;\nfor (;;) spins++;", on_busy=stop)
            assert reply["status"] == "error" and reply["ename"] == "KeyboardInterrupt", reply
            reply, iopub = k.ch.execute("n + 1")
            assert data_of(iopub, "execute_result") == [{"text/plain": "(int) 7"}], iopub
            assert alive(k.pid)
    _with_log(gw, body)


def restart_and_shutdown(kind):
    """The gateway's restart ends the kernel's process and starts a new one
    with a new session; its shutdown ends the process and forgets the kernel."""
    gw = shared(kind)

    def body():
        k = RemoteKernel(gw)
        try:
            k.ch.execute("int n = 6;")
            first, before = k.pid, len(gw.kernel_pids())
            status, answer = gw.api("POST", f"/api/kernels/{k.id}/restart")
            assert status == 200, (status, answer)
            wait_for(lambda: not alive(first), f"the kernel (pid {first}) outlived its restart")
            second = wait_new_kernel(gw, before)
            assert alive(second)
            k.ch.close()
            k.ch = None
            k.ch = Channels(gw, k.id)
            reply, iopub = k.ch.execute('printf("again\\n");')
            assert reply["status"] == "ok" and reply["execution_count"] == 1, reply
            assert stdout(iopub) == "again\n", iopub
            reply, _ = k.ch.execute("n")
            assert reply["status"] == "error" and "undeclared" in reply["evalue"], reply
        finally:
            status, answer = k.close()
        assert status == 204, (status, answer)
        wait_for(lambda: not alive(second), f"the kernel (pid {second}) outlived its shutdown")
        status, answer = gw.api("GET", f"/api/kernels/{k.id}")
        assert status == 404, (status, answer)
    _with_log(gw, body)


SCALE = """__global__ void scale(float *x, float a, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] *= a;
}"""

LAUNCH = """int n = 1024;
float *h = (float *)malloc(n * sizeof(float));
for (int i = 0; i < n; i++) h[i] = i;
float *a;
cudaSetDevice(0);
cudaMalloc(&a, n * sizeof(float));
cudaMemcpy(a, h, n * sizeof(float), cudaMemcpyHostToDevice);
scale<<<(n + 255) / 256, 256>>>(a, 2.0f, n);
cudaMemcpy(h, a, n * sizeof(float), cudaMemcpyDeviceToHost);
double sum = 0;
for (int i = 0; i < n; i++) sum += h[i];
printf("sum %.0f\\n", sum);"""

# GPU 1 scales GPU 0's buffer in place, through peer access
PEER = """int peers = 0, back = 0, ndev = 0;
cudaGetDeviceCount(&ndev);
if (ndev >= 2) { cudaDeviceCanAccessPeer(&peers, 1, 0); cudaDeviceCanAccessPeer(&back, 0, 1); }
if (peers && back) {
    cudaSetDevice(1);
    cudaDeviceEnablePeerAccess(0, 0);
    scale<<<(n + 255) / 256, 256>>>(a, 2.0f, n);
    cudaDeviceSynchronize();
    cudaSetDevice(0);
    cudaMemcpy(h, a, n * sizeof(float), cudaMemcpyDeviceToHost);
    sum = 0;
    for (int i = 0; i < n; i++) sum += h[i];
    printf("peer sum %.0f\\n", sum);
} else {
    printf("no two GPUs with peer access: %d GPU(s)\\n", ndev);
}"""


def gpu_cells(kind):
    """On a GPU node: a device cell, a launch from host code and the copy
    back; %devices; with two GPUs that reach each other, GPU 1 scaling GPU
    0's buffer through peer access. All through the gateway."""
    gw = shared(kind)

    def body():
        with RemoteKernel(gw) as k:
            reply, iopub = k.ch.execute(SCALE, timeout=120)
            assert reply["status"] == "ok", (reply, iopub)
            reply, iopub = k.ch.execute(LAUNCH, timeout=120)
            assert reply["status"] == "ok" and stdout(iopub) == "sum 1047552\n", (reply, iopub)
            reply, iopub = k.ch.execute("%devices")
            assert reply["status"] == "ok" and (stdout(iopub) or data_of(iopub, "display_data")), iopub
            reply, iopub = k.ch.execute(PEER, timeout=120)
            out = stdout(iopub)
            assert reply["status"] == "ok", (reply, iopub)
            assert out == "peer sum 2095104\n" or out.startswith("no two GPUs"), out
            print(out.strip())
    _with_log(gw, body)
