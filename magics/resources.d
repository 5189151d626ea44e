magics/resources.o: magics/resources.c magics/chart.h magics/magics.h \
 runtime/base/cell_io.h runtime/device/device_session.h \
 runtime/toolkit/cuda_errors.h runtime/cuda/cuda_inspect.h \
 runtime/cuda/cuda_session.h runtime/gpu/channel.h \
 runtime/device/occupancy.h runtime/base/strbuf.h runtime/base/xalloc.h
magics/chart.h:
magics/magics.h:
runtime/base/cell_io.h:
runtime/device/device_session.h:
runtime/toolkit/cuda_errors.h:
runtime/cuda/cuda_inspect.h:
runtime/cuda/cuda_session.h:
runtime/gpu/channel.h:
runtime/device/occupancy.h:
runtime/base/strbuf.h:
runtime/base/xalloc.h:
