// A linked list built by the host in managed memory (through a template
// helper) and walked by both the host and a kernel with one shared
// __host__ __device__ function; the kernel's answer must match the host's.
#include <cstdio>
#include <cstdlib>

#define cudaCheckErrors(msg)                                               \
    do {                                                                   \
        cudaError_t e_ = cudaGetLastError();                               \
        if (e_ != cudaSuccess) {                                           \
            fprintf(stderr, "error: %s (%s at %s:%d)\n", msg,              \
                    cudaGetErrorString(e_), __FILE__, __LINE__);           \
            exit(1);                                                       \
        }                                                                  \
    } while (0)

struct list_node {
    int key;
    float weight;
    list_node *next;
};

template <typename T>
void alloc_managed(T &ptr, size_t num_bytes) {
    cudaMallocManaged(&ptr, num_bytes);
}

__host__ __device__ float weight_at(const list_node *head, int steps) {
    const list_node *n = head;
    for (int i = 0; i < steps && n; i++) n = n->next;
    return n ? n->weight * n->key : -1.0f;
}

__global__ void walk(const list_node *head, int steps, float *out) {
    if (threadIdx.x == 0 && blockIdx.x == 0) *out = weight_at(head, steps);
}

int main() {
    const int count = 12;
    const int steps = 7;
    list_node *head, *node;
    alloc_managed(head, sizeof(list_node));
    node = head;
    for (int i = 0; i < count; i++) {
        node->key = i + 1;
        node->weight = 0.5f * i;
        if (i == count - 1) {
            node->next = nullptr;
        } else {
            alloc_managed(node->next, sizeof(list_node));
            node = node->next;
        }
    }
    cudaCheckErrors("allocating the list");

    float *result;
    alloc_managed(result, sizeof(float));
    *result = 0.0f;
    walk<<<1, 32>>>(head, steps, result);
    cudaDeviceSynchronize();
    cudaCheckErrors("walking the list on the GPU");

    float host = weight_at(head, steps);
    float device = *result;
    printf("node %d: host %.2f, device %.2f\n", steps, host, device);

    node = head;
    while (node) {
        list_node *next = node->next;
        cudaFree(node);
        node = next;
    }
    cudaFree(result);
    if (host != device) {
        printf("FAIL\n");
        return 1;
    }
    printf("PASS\n");
    return 0;
}
