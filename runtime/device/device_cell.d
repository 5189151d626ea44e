runtime/device/device_cell.o: runtime/device/device_cell.c \
 runtime/device/compile_errors.h runtime/device/device_headers.h \
 runtime/device/device_lines.h runtime/device/device_unit.h \
 runtime/device/device_session.h runtime/device/gpu_arch.h \
 runtime/base/progress.h runtime/base/cell_io.h runtime/lang/interp.h \
 runtime/base/strbuf.h runtime/base/vec.h runtime/base/xalloc.h
runtime/device/compile_errors.h:
runtime/device/device_headers.h:
runtime/device/device_lines.h:
runtime/device/device_unit.h:
runtime/device/device_session.h:
runtime/device/gpu_arch.h:
runtime/base/progress.h:
runtime/base/cell_io.h:
runtime/lang/interp.h:
runtime/base/strbuf.h:
runtime/base/vec.h:
runtime/base/xalloc.h:
