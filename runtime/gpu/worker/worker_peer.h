/* What connects two GPUs, for CH_PEER_INFO (worker_peer.c). */
#ifndef ICUDA_WORKER_PEER_H
#define ICUDA_WORKER_PEER_H

#include "runtime/gpu/channel.h"
#include "runtime/gpu/cuda_driver.h"

/* Fills p for device a reaching device b's memory (a == b: nothing to say). */
CUresult worker_peer_info(const cuda_driver_t *D, int ndev, int a, int b, ch_peer_info_t *p);

#endif
