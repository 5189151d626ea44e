#include "cxx_class.h"
void cxx_vector_register(interp_t *in) { (void)in; }
