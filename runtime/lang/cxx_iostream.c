#include "cxx_class.h"
void cxx_iostream_register(interp_t *in) { (void)in; }
