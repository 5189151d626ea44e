/* CUDA 13's enum cudaDeviceAttr (driver_types.h) for host cells, which
 * cudaDeviceGetAttribute takes; the driver numbers its attributes the same
 * way, so runtime/cuda forwards the number as it is. Reserved values left
 * out. */
#ifndef ICUDA_CUDA_DEVICE_ATTRS_H
#define ICUDA_CUDA_DEVICE_ATTRS_H

#define CUDA_DEVICE_ATTR_ENUM \
    "enum cudaDeviceAttr {\n" \
    "cudaDevAttrMaxThreadsPerBlock=1, cudaDevAttrMaxBlockDimX=2, cudaDevAttrMaxBlockDimY=3, \n" \
    "cudaDevAttrMaxBlockDimZ=4, cudaDevAttrMaxGridDimX=5, cudaDevAttrMaxGridDimY=6, cudaDevAttrMaxGridDimZ=7, \n" \
    "cudaDevAttrMaxSharedMemoryPerBlock=8, cudaDevAttrTotalConstantMemory=9, cudaDevAttrWarpSize=10, \n" \
    "cudaDevAttrMaxPitch=11, cudaDevAttrMaxRegistersPerBlock=12, cudaDevAttrClockRate=13, \n" \
    "cudaDevAttrTextureAlignment=14, cudaDevAttrGpuOverlap=15, cudaDevAttrMultiProcessorCount=16, \n" \
    "cudaDevAttrKernelExecTimeout=17, cudaDevAttrIntegrated=18, cudaDevAttrCanMapHostMemory=19, \n" \
    "cudaDevAttrComputeMode=20, cudaDevAttrMaxTexture1DWidth=21, cudaDevAttrMaxTexture2DWidth=22, \n" \
    "cudaDevAttrMaxTexture2DHeight=23, cudaDevAttrMaxTexture3DWidth=24, cudaDevAttrMaxTexture3DHeight=25, \n" \
    "cudaDevAttrMaxTexture3DDepth=26, cudaDevAttrMaxTexture2DLayeredWidth=27, \n" \
    "cudaDevAttrMaxTexture2DLayeredHeight=28, cudaDevAttrMaxTexture2DLayeredLayers=29, \n" \
    "cudaDevAttrSurfaceAlignment=30, cudaDevAttrConcurrentKernels=31, cudaDevAttrEccEnabled=32, \n" \
    "cudaDevAttrPciBusId=33, cudaDevAttrPciDeviceId=34, cudaDevAttrTccDriver=35, \n" \
    "cudaDevAttrMemoryClockRate=36, cudaDevAttrGlobalMemoryBusWidth=37, cudaDevAttrL2CacheSize=38, \n" \
    "cudaDevAttrMaxThreadsPerMultiProcessor=39, cudaDevAttrAsyncEngineCount=40, \n" \
    "cudaDevAttrUnifiedAddressing=41, cudaDevAttrMaxTexture1DLayeredWidth=42, \n" \
    "cudaDevAttrMaxTexture1DLayeredLayers=43, cudaDevAttrMaxTexture2DGatherWidth=45, \n" \
    "cudaDevAttrMaxTexture2DGatherHeight=46, cudaDevAttrMaxTexture3DWidthAlt=47, \n" \
    "cudaDevAttrMaxTexture3DHeightAlt=48, cudaDevAttrMaxTexture3DDepthAlt=49, cudaDevAttrPciDomainId=50, \n" \
    "cudaDevAttrTexturePitchAlignment=51, cudaDevAttrMaxTextureCubemapWidth=52, \n" \
    "cudaDevAttrMaxTextureCubemapLayeredWidth=53, cudaDevAttrMaxTextureCubemapLayeredLayers=54, \n" \
    "cudaDevAttrMaxSurface1DWidth=55, cudaDevAttrMaxSurface2DWidth=56, cudaDevAttrMaxSurface2DHeight=57, \n" \
    "cudaDevAttrMaxSurface3DWidth=58, cudaDevAttrMaxSurface3DHeight=59, cudaDevAttrMaxSurface3DDepth=60, \n" \
    "cudaDevAttrMaxSurface1DLayeredWidth=61, cudaDevAttrMaxSurface1DLayeredLayers=62, \n" \
    "cudaDevAttrMaxSurface2DLayeredWidth=63, cudaDevAttrMaxSurface2DLayeredHeight=64, \n" \
    "cudaDevAttrMaxSurface2DLayeredLayers=65, cudaDevAttrMaxSurfaceCubemapWidth=66, \n" \
    "cudaDevAttrMaxSurfaceCubemapLayeredWidth=67, cudaDevAttrMaxSurfaceCubemapLayeredLayers=68, \n" \
    "cudaDevAttrMaxTexture1DLinearWidth=69, cudaDevAttrMaxTexture2DLinearWidth=70, \n" \
    "cudaDevAttrMaxTexture2DLinearHeight=71, cudaDevAttrMaxTexture2DLinearPitch=72, \n" \
    "cudaDevAttrMaxTexture2DMipmappedWidth=73, cudaDevAttrMaxTexture2DMipmappedHeight=74, \n" \
    "cudaDevAttrComputeCapabilityMajor=75, cudaDevAttrComputeCapabilityMinor=76, \n" \
    "cudaDevAttrMaxTexture1DMipmappedWidth=77, cudaDevAttrStreamPrioritiesSupported=78, \n" \
    "cudaDevAttrGlobalL1CacheSupported=79, cudaDevAttrLocalL1CacheSupported=80, \n" \
    "cudaDevAttrMaxSharedMemoryPerMultiprocessor=81, cudaDevAttrMaxRegistersPerMultiprocessor=82, \n" \
    "cudaDevAttrManagedMemory=83, cudaDevAttrIsMultiGpuBoard=84, cudaDevAttrMultiGpuBoardGroupID=85, \n" \
    "cudaDevAttrHostNativeAtomicSupported=86, cudaDevAttrSingleToDoublePrecisionPerfRatio=87, \n" \
    "cudaDevAttrPageableMemoryAccess=88, cudaDevAttrConcurrentManagedAccess=89, \n" \
    "cudaDevAttrComputePreemptionSupported=90, cudaDevAttrCanUseHostPointerForRegisteredMem=91, \n" \
    "cudaDevAttrCooperativeLaunch=95, cudaDevAttrMaxSharedMemoryPerBlockOptin=97, \n" \
    "cudaDevAttrCanFlushRemoteWrites=98, cudaDevAttrHostRegisterSupported=99, \n" \
    "cudaDevAttrPageableMemoryAccessUsesHostPageTables=100, cudaDevAttrDirectManagedMemAccessFromHost=101, \n" \
    "cudaDevAttrMaxBlocksPerMultiprocessor=106, cudaDevAttrMaxPersistingL2CacheSize=108, \n" \
    "cudaDevAttrMaxAccessPolicyWindowSize=109, cudaDevAttrSparseCudaArraySupported=112, \n" \
    "cudaDevAttrHostRegisterReadOnlySupported=113, cudaDevAttrTimelineSemaphoreInteropSupported=114, \n" \
    "cudaDevAttrMemoryPoolsSupported=115, cudaDevAttrGPUDirectRDMASupported=116, \n" \
    "cudaDevAttrGPUDirectRDMAFlushWritesOptions=117, cudaDevAttrGPUDirectRDMAWritesOrdering=118, \n" \
    "cudaDevAttrMemoryPoolSupportedHandleTypes=119, cudaDevAttrClusterLaunch=120, \n" \
    "cudaDevAttrDeferredMappingCudaArraySupported=121, cudaDevAttrIpcEventSupport=125, \n" \
    "cudaDevAttrMemSyncDomainCount=126, cudaDevAttrNumaConfig=130, cudaDevAttrNumaId=131, \n" \
    "cudaDevAttrMpsEnabled=133, cudaDevAttrHostNumaId=134, cudaDevAttrD3D12CigSupported=135, \n" \
    "cudaDevAttrVulkanCigSupported=138, cudaDevAttrGpuPciDeviceId=139, cudaDevAttrGpuPciSubsystemId=140, \n" \
    "cudaDevAttrHostNumaMemoryPoolsSupported=142, cudaDevAttrHostNumaMultinodeIpcSupported=143, \n" \
    "cudaDevAttrHostMemoryPoolsSupported=144, cudaDevAttrOnlyPartialHostNativeAtomicSupported=147\n" \
    "};\ntypedef enum cudaDeviceAttr cudaDeviceAttr;\n"

#endif
