runtime/device/device_pp.o: runtime/device/device_pp.c \
 runtime/lang/interp.h runtime/device/device_session.h
runtime/lang/interp.h:
runtime/device/device_session.h:
