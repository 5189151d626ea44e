/* The C++ library's own parts (cxx_*.c): the registry its classes, class
 * templates, library functions and objects are made with (cxx_lib.c), and
 * what the library classes share. The class model and the parser's hooks
 * into it are the front end's (front/cxx_class.h). */
#ifndef ICUDA_LANG_CXX_LIB_H
#define ICUDA_LANG_CXX_LIB_H

#include "runtime/lang/front/cxx_class.h"
#include "lib.h"

/* a library method implemented by a builtin: fty without `this` */
cx_method_t *cx_lib_method(interp_t *in, cx_class_t *c, const char *name, type_t *fty, bfn_t fn, void *data);
void cx_register_template(interp_t *in, const char *name, cx_instantiate_fn fn);
void cx_register_libfn(interp_t *in, const char *name, cx_libfn fn);
type_t *cx_lib_class(interp_t *in, const char *name, size_t size, size_t align, int lib, cx_class_t **out);
gvar_t *cx_lib_global(interp_t *in, const char *name, type_t *t);
void cxx_vector_register(interp_t *in);
void cxx_string_register(interp_t *in);
void cxx_iostream_register(interp_t *in);
void cxx_chrono_register(interp_t *in);
void cxx_limits_register(interp_t *in); /* <limits> (cxx_limits.c) */
void cxx_random_register(interp_t *in);
void cxx_iterator_register(interp_t *in); /* <iterator> (cxx_iterator.c) */
/* std::copy(first, last, std::back_inserter(vec)) (cxx_vector.c) */
node_t *cx_vector_append(P *p, node_t *vec, node_t *first, node_t *last, loc_t *l);
type_t *cx_string_type(interp_t *in);
/* checked bytes of the object `this` points to */
char *cx_obj(val_t *args, int i, size_t size, node_t *at);
type_t *cx_fty(type_t *ret, int n, ...);  /* a method type */
node_t *cx_lib_call_ret(P *p, loc_t *l, bfn_t fn, type_t *rt, node_t **args, int n, int op, const char *name);
void cx_lib_type_name(interp_t *in, const char *name, type_t *t);
void cx_nested_type(interp_t *in, cx_class_t *c, const char *name, type_t *t); /* std::vector<T>::iterator */
uint64_t cx_store_alloc(uint64_t size, const char *what, node_t *at);   /* a library buffer */
void cx_store_free(uint64_t w, const char *what, node_t *at);
void cx_string_set(char *obj, const char *b, uint64_t n, node_t *at);  /* a std::string's bytes */
const char *cx_string_chars(const char *obj, uint64_t *len, node_t *at);

/* an instance of a template already made for these arguments, by its name */
type_t *cx_instance_get(interp_t *in, const char *name);
void cx_instance_put(interp_t *in, const char *name, type_t *t);
/* the builtin of a method whose special form (m->special) builds its own
 * nodes: a placeholder that returns 0 (cxx_chrono.c) */
val_t cx_nop_builtin(node_t *c, val_t *a, int n, frame_t *f);

#endif
