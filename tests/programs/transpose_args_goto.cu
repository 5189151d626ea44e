// Matrix transpose through a padded shared-memory tile. The size can be given
// on the command line (argc/argv); the device's name is printed with
// std::cout; a mismatch jumps to the cleanup with goto, as the C exercises
// do. The launch is written the way an old code formatter leaves it.
#include <cstdio>
#include <cstdlib>
#include <iostream>

#define CUDA_CALL(F)                                                       \
    if ((F) != cudaSuccess) {                                              \
        printf("Error %s at %s:%d\n", cudaGetErrorString(cudaGetLastError()), \
               __FILE__, __LINE__);                                        \
        exit(-1);                                                          \
    }

#define TILE_DIM 32
#define BLOCK_ROWS 8
#define INDX(row, col, ld) ((row) * (ld) + (col))

__global__ void transpose_tile(const double *a, double *c, int m) {
    __shared__ double tile[TILE_DIM][TILE_DIM + 1];
    int x = blockIdx.x * TILE_DIM + threadIdx.x;
    int y = blockIdx.y * TILE_DIM + threadIdx.y;
    for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
        if (x < m && y + j < m) tile[threadIdx.y + j][threadIdx.x] = a[INDX(y + j, x, m)];
    __syncthreads();
    x = blockIdx.y * TILE_DIM + threadIdx.x;
    y = blockIdx.x * TILE_DIM + threadIdx.y;
    for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
        if (x < m && y + j < m) c[INDX(y + j, x, m)] = tile[threadIdx.x][threadIdx.y + j];
}

int main(int argc, char *argv[]) {
    int size = 1000;
    if (argc > 1) size = atoi(argv[1]);
    if (size <= 0) {
        fprintf(stderr, "usage: %s [size]\n", argv[0]);
        return 1;
    }

    cudaDeviceProp prop;
    CUDA_CALL(cudaGetDeviceProperties(&prop, 0));
    std::cout << "device: " << prop.name << ", matrix " << size << " x " << size << std::endl;

    size_t numbytes = (size_t)size * size * sizeof(double);
    double *h_a = (double *)malloc(numbytes);
    double *h_c = (double *)malloc(numbytes);
    double *d_a, *d_c;
    int status = 0;
    for (int i = 0; i < size * size; i++) h_a[i] = double(i % 1013) / 7.0;

    CUDA_CALL(cudaMalloc((void **)&d_a, numbytes));
    CUDA_CALL(cudaMalloc((void **)&d_c, numbytes));
    CUDA_CALL(cudaMemcpy(d_a, h_a, numbytes, cudaMemcpyHostToDevice));

    dim3 threads(TILE_DIM, BLOCK_ROWS, 1);
    dim3 blocks((size + TILE_DIM - 1) / TILE_DIM, (size + TILE_DIM - 1) / TILE_DIM, 1);
    transpose_tile<< <blocks, threads>> >(d_a, d_c, size);
    CUDA_CALL(cudaGetLastError());
    CUDA_CALL(cudaMemcpy(h_c, d_c, numbytes, cudaMemcpyDeviceToHost));

    for (int row = 0; row < size; row++) {
        for (int col = 0; col < size; col++) {
            if (h_c[INDX(row, col, size)] != h_a[INDX(col, row, size)]) {
                printf("Error in element %d,%d\n", row, col);
                printf("FAIL\n");
                status = 1;
                goto end;
            }
        }
    }
    printf("PASS\n");

end:
    free(h_a);
    free(h_c);
    CUDA_CALL(cudaFree(d_a));
    CUDA_CALL(cudaFree(d_c));
    return status;
}
