// The same kernel over a large array twice: once with one copy in, one launch
// and one copy out; then split into chunks, each chunk's copies and launch in
// one of four streams so that copies and compute overlap. Pinned host memory,
// cudaMemcpyAsync, events for the times; the two results must agree.
#include <cstdio>
#include <vector>
#include <cmath>

#define CHECK(call)                                                        \
    do {                                                                   \
        cudaError_t e_ = (call);                                           \
        if (e_ != cudaSuccess) {                                           \
            fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__,             \
                    cudaGetErrorString(e_));                               \
            exit(1);                                                       \
        }                                                                  \
    } while (0)

__global__ void smooth(const float *x, float *y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float v = x[i];
        for (int k = 0; k < 32; k++) v = 0.5f * (v + 1.0f / (1.0f + v * v));
        y[i] = v;
    }
}

int main() {
    const int N = 1 << 22;
    const int CHUNKS = 16;
    const int NSTREAMS = 4;
    const int chunk = N / CHUNKS;
    const size_t bytes = N * sizeof(float);

    float *h_x, *h_y, *h_ref;
    CHECK(cudaMallocHost(&h_x, bytes));
    CHECK(cudaMallocHost(&h_y, bytes));
    CHECK(cudaMallocHost(&h_ref, bytes));
    for (int i = 0; i < N; i++) h_x[i] = (float)(i % 1000) / 1000.0f;

    float *d_x, *d_y;
    CHECK(cudaMalloc(&d_x, bytes));
    CHECK(cudaMalloc(&d_y, bytes));

    cudaEvent_t start, stop;
    CHECK(cudaEventCreate(&start));
    CHECK(cudaEventCreate(&stop));

    // one stream, no overlap
    CHECK(cudaEventRecord(start));
    CHECK(cudaMemcpy(d_x, h_x, bytes, cudaMemcpyHostToDevice));
    smooth<<<(N + 255) / 256, 256>>>(d_x, d_y, N);
    CHECK(cudaMemcpy(h_ref, d_y, bytes, cudaMemcpyDeviceToHost));
    CHECK(cudaEventRecord(stop));
    CHECK(cudaEventSynchronize(stop));
    float plain_ms = 0;
    CHECK(cudaEventElapsedTime(&plain_ms, start, stop));

    // chunks over several streams
    std::vector<cudaStream_t> streams(NSTREAMS);
    for (auto &s : streams) CHECK(cudaStreamCreate(&s));
    CHECK(cudaMemset(d_y, 0, bytes));
    CHECK(cudaEventRecord(start));
    for (int c = 0; c < CHUNKS; c++) {
        cudaStream_t s = streams[c % NSTREAMS];
        int off = c * chunk;
        CHECK(cudaMemcpyAsync(d_x + off, h_x + off, chunk * sizeof(float), cudaMemcpyHostToDevice, s));
        smooth<<<(chunk + 255) / 256, 256, 0, s>>>(d_x + off, d_y + off, chunk);
        CHECK(cudaMemcpyAsync(h_y + off, d_y + off, chunk * sizeof(float), cudaMemcpyDeviceToHost, s));
    }
    CHECK(cudaEventRecord(stop));
    CHECK(cudaEventSynchronize(stop));
    CHECK(cudaDeviceSynchronize());
    float streamed_ms = 0;
    CHECK(cudaEventElapsedTime(&streamed_ms, start, stop));

    int bad = 0;
    for (int i = 0; i < N; i++)
        if (h_y[i] != h_ref[i]) bad++;
    printf("one stream %.3f ms, %d streams %.3f ms, %d differences\n", plain_ms, NSTREAMS, streamed_ms, bad);

    for (auto s : streams) CHECK(cudaStreamDestroy(s));
    CHECK(cudaEventDestroy(start));
    CHECK(cudaEventDestroy(stop));
    CHECK(cudaFree(d_x));
    CHECK(cudaFree(d_y));
    CHECK(cudaFreeHost(h_x));
    CHECK(cudaFreeHost(h_y));
    CHECK(cudaFreeHost(h_ref));
    if (bad != 0) {
        printf("FAIL\n");
        return 1;
    }
    printf("PASS\n");
    return 0;
}
