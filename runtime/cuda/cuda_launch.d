runtime/cuda/cuda_launch.o: runtime/cuda/cuda_launch.c \
 runtime/cuda/cuda_internal.h runtime/toolkit/cuda_errors.h \
 runtime/cuda/cuda_session.h runtime/base/cell_io.h \
 runtime/gpu/client/gpu_client.h /usr/local/cuda/include/cuda.h \
 runtime/gpu/channel.h runtime/lang/interp.h \
 runtime/device/device_session.h runtime/base/strbuf.h runtime/base/vec.h \
 runtime/base/xalloc.h
runtime/cuda/cuda_internal.h:
runtime/toolkit/cuda_errors.h:
runtime/cuda/cuda_session.h:
runtime/base/cell_io.h:
runtime/gpu/client/gpu_client.h:
/usr/local/cuda/include/cuda.h:
runtime/gpu/channel.h:
runtime/lang/interp.h:
runtime/device/device_session.h:
runtime/base/strbuf.h:
runtime/base/vec.h:
runtime/base/xalloc.h:
