magics/ptx.o: magics/ptx.c magics/magics.h runtime/base/cell_io.h \
 runtime/device/device_session.h runtime/base/strbuf.h
magics/magics.h:
runtime/base/cell_io.h:
runtime/device/device_session.h:
runtime/base/strbuf.h:
