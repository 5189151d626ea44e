#include "cxx_class.h"
void cxx_chrono_register(interp_t *in) { (void)in; }
