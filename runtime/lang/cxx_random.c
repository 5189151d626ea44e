#include "cxx_class.h"
void cxx_random_register(interp_t *in) { (void)in; }
