magics/sass.o: magics/sass.c magics/magics.h runtime/base/cell_io.h \
 runtime/device/device_session.h runtime/cuda/cuda_inspect.h \
 runtime/cuda/cuda_session.h runtime/gpu/channel.h \
 runtime/program/cuda_tools.h runtime/base/strbuf.h
magics/magics.h:
runtime/base/cell_io.h:
runtime/device/device_session.h:
runtime/cuda/cuda_inspect.h:
runtime/cuda/cuda_session.h:
runtime/gpu/channel.h:
runtime/program/cuda_tools.h:
runtime/base/strbuf.h:
