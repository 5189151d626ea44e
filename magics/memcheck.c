/* placeholder */
#include "magics.h"
const magic_t magic_memcheck = {"memcheck", "%memcheck STATEMENT", "x", "", NULL, NULL};
