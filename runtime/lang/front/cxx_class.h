/* C++ classes in the host interpreter: user structs/classes with member
 * functions, constructors and destructors (parse_class.c), the lifetimes of
 * objects that own something (cxx_object.c), and the library classes
 * (cxx_vector.c, cxx_string.c, cxx_iostream.c, cxx_chrono.c, cxx_random.c),
 * which are the same kind of class with builtins for methods.
 *
 * A class is a struct type whose sdef points at a cx_class_t. A method call
 * is an ordinary call whose first argument is `this`, a checked pointer
 * word: user methods are interpreted functions, library methods builtins.
 * Objects that own storage (a std::vector's elements, a class with a
 * destructor) are "nontrivial": each one has a flag slot in the frame that
 * makes it, set when it is constructed and cleared when it is destroyed or
 * moved, so a scope's exit destroys exactly what lives. The parser's files
 * call the hooks below from one line each; the class code itself lives in
 * parse_class.c (bodies, member functions) and parse_class_call.c (calls,
 * construction, operators). */
#ifndef ICUDA_CXX_CLASS_H
#define ICUDA_CXX_CLASS_H

#include "parse_internal.h"

typedef struct cx_class cx_class_t;
typedef struct cx_method cx_method_t;
/* A library class template: "std::vector" -> its instances by type arguments. */
typedef type_t *(*cx_instantiate_fn)(P *p, type_t **targs, int ntargs, int64_t *iargs, int niargs, loc_t *l);

/* A library method that types its own call (operator<< takes anything):
 * obj is the object (a place), args as parsed (not converted). */
typedef node_t *(*cx_special_fn)(P *p, cx_method_t *m, node_t *obj, node_t **args, int n, loc_t *l);

struct cx_method {
    const char *name;      /* "start", "operator[]", the class name for constructors */
    cx_class_t *cls;
    bool is_static, is_ctor, is_dtor, ret_ref, deleted, is_explicit, defined;
    type_t *fty;           /* parameters without `this` */
    fbox_t *box;           /* user method: a function taking `this` first */
    builtin_t *bi;         /* library method: args[0] is `this` */
    cx_special_fn special;
    int nreq;              /* library: arguments required (the rest default to defv); -1: all */
    val_t defv[4];
    const char **pnames;
    int body_at, init_at;  /* token indexes of an in-class body and its ':' (-1 none) */
    loc_t loc;
    cx_method_t *next;
};

/* What a library class does at run time with objects' bytes. */
typedef struct cx_libops {
    void (*destroy)(cx_class_t *c, char *obj, node_t *at);
    void (*copy)(cx_class_t *c, char *dst, const char *src, node_t *at); /* dst holds garbage */
    /* value display (may be NULL): appends the text of the object */
    char *(*show)(cx_class_t *c, const char *obj);
} cx_libops_t;

struct cx_class {
    const char *name;      /* "Timer", "std::vector<float>" */
    type_t *type;          /* the struct type, named */
    cx_method_t *methods;
    bool is_lib, has_dtor, user_dtor;
    bool nontrivial;       /* objects must be destroyed (and copied with care) */
    bool has_ctor;         /* some constructor is declared */
    cx_method_t *default_ctor; /* what `T x;` runs (NULL: zeroing is enough) */
    cx_method_t *dtor;
    cx_method_t *copy_m;   /* a copy constructor of the user's, T(const T &), maybe deleted */
    cx_method_t *init_m;   /* #init(this, skip): default member initialisers (parse_class.c) */
    const cx_libops_t *ops;
    type_t *targ[2];       /* library templates: their type arguments */
    int64_t iarg[2];       /* ... and numbers (std::ratio) */
    int lib;               /* which library class (LIB_*) */
    /* user classes: default member initialisers (token index, -1 none) per field */
    int *nsdmi;
    int nfields;
    cx_instantiate_fn tmpl; /* a class template (std::vector): its instances' maker */
    struct cx_nested { const char *name; type_t *ty; struct cx_nested *next; } *nested; /* T::iterator ... */
};

enum { LIB_NONE, LIB_VECTOR, LIB_STRING, LIB_OSTREAM, LIB_MANIP, LIB_CLOCK, LIB_TIMEPOINT, LIB_DURATION,
       LIB_RATIO, LIB_MT19937, LIB_UNIFORM_INT, LIB_UNIFORM_REAL, LIB_NORMAL, LIB_RANDOM_DEVICE };


/* A library function template or special function ("std::chrono::duration_cast",
 * "std::to_string"): parses what follows its name. */
typedef node_t *(*cx_libfn)(P *p, loc_t *l);

/* ---- per-session state (interp->cxx) ---- */
typedef struct cx_state {
    hmap_t instances;      /* "std::vector<float>" -> type_t* */
    hmap_t gconstructed;   /* session variable name -> gvar_t* whose object is constructed */
    hmap_t libfns;         /* name -> cx_libfn (boxed) */
    uint64_t empty_str;    /* a read-only "" for std::string::c_str() of an empty string */
    type_t *string_type, *ostream_type;
    int nboxes;            /* method function boxes made (their keys) */
} cx_state_t;
cx_state_t *cx_state(interp_t *in);
void cxx_session_free(interp_t *in);

/* ---- per-parse state (P->cx) ---- */
typedef struct cx_life {
    node_t *pl; type_t *ty; int flag; bool temp, param;
    node_t *mk;          /* a temporary: the node that makes it */
    fctx_t *f;           /* the function whose frame holds it */
} cx_life_t;
typedef struct cx_parse {
    cx_life_t *lives; int nlives, caplives;
    int *scopes; int nscopes, capscopes;
    int gt_split, gt_used;   /* a '>>' token half consumed by a template argument list */
    bool braced;             /* the library constructor being called was written T{...} */
    cx_class_t *cls;         /* the class whose method is being compiled */
    fctx_t *this_f;          /* ... and that method's function */
    fctx_t *params_f;        /* the function whose parameters are registered */
} cx_parse_t;
cx_parse_t *cx_parse(P *p);

/* ---- classes (parse_class.c) ---- */
static inline cx_class_t *cx_class_of(type_t *t) {
    return t && (t->kind == T_STRUCT || t->kind == T_UNION) && t->sd ? t->sd->cls : NULL;
}
bool cx_nontrivial(type_t *t);
const char *cx_disp_name(cx_method_t *m, char *b, size_t n); /* "Timer::stop" */
type_t *cx_full_fty(cx_method_t *m);                        /* a user method's function type, `this` first */
fbox_t *cx_method_box(P *p, cx_method_t *m);
sym_t *cx_find_this(P *p);
node_t *cx_this_value(P *p, loc_t *l);                       /* `this` inside a member function */
cx_class_t *cx_class_new(interp_t *in, type_t *t, const char *name);
cx_method_t *cx_method_add(interp_t *in, cx_class_t *c, const char *name, type_t *fty);
cx_method_t *cx_find_method(cx_class_t *c, const char *name);
/* calls method m (overloads through m->next) on obj (a place; NULL for static) with args parsed */
node_t *cx_call(P *p, cx_method_t *m, node_t *obj, node_t **args, int n, loc_t *l);
node_t **cx_args(P *p, int *n, int close);  /* after '(' or '{': the arguments up to close ({..} among them) */
bool cx_is_brace(node_t *e);                /* an argument written {..} */
/* the object's pointer word (a place that has none is copied to a temporary first) */
node_t *cx_this_word(P *p, node_t *obj);
/* a temporary of class type t with an address: its place, registered when nontrivial */
node_t *cx_temp(P *p, type_t *t, loc_t *l, int *life);
/* construct the object at place pl from the tokens that follow (`(args)`, `{args}`,
 * `= expr`, or nothing: default); statements to o */
void cx_construct_from_tokens(P *p, node_t *pl, type_t *t, bool has_eq, ilist_t *o, loc_t *l);
node_t *cx_construct(P *p, node_t *pl, type_t *t, node_t **args, int n, bool braced, loc_t *l);
/* e converted to class type t (same class, or a converting constructor) into a new temporary; NULL if no way */
node_t *cx_convert(P *p, node_t *e, type_t *t, const char *what);
int cx_template_close(P *p);   /* accepts one '>' (half a '>>'); 0 if none here */
bool cx_at_template_close(P *p);

/* ---- object lifetimes (cxx_object.c) ---- */
int cx_life_add(P *p, node_t *pl, type_t *t, bool temp);  /* -1 when t is trivial */
cx_life_t *cx_life_of(P *p, node_t *pl);                  /* a temporary or local registered */
node_t *cx_life_begin(P *p, int life);  /* statement: destroy what an earlier pass left */
node_t *cx_life_set(P *p, int life);    /* statement: the object now lives */
node_t *cx_life_wrap(P *p, int life, node_t *make, node_t *pl); /* expr: begin, make, set; value: pl's address */
node_t *cx_move_from(P *p, node_t *pl); /* expr: pl's host address, its object no longer owned there */
void cx_rt_destroy(type_t *t, uint64_t word, node_t *at);
void cx_rt_copy(type_t *t, uint64_t dst, uint64_t src, node_t *at);
void cx_rt_default(type_t *t, uint64_t word, node_t *at);
node_t *mk_cx_destroy(loc_t *l, type_t *t, node_t *word);
node_t *mk_cx_copy(loc_t *l, type_t *t, node_t *dstword, node_t *srcword);
node_t *mk_cx_default(loc_t *l, type_t *t, node_t *word);
node_t *mk_cx_default_n(loc_t *l, type_t *t, node_t *word);   /* new T[n]: every element of the buffer */
node_t *mk_cx_destroy_buf(loc_t *l, type_t *t, node_t *word, bool array); /* delete / delete[] */
/* a session variable of a nontrivial class: gdecl (its declaration) destroys
 * the object an earlier cell made under that name first; then it is
 * remembered as constructed */
node_t *cx_gvar_replace(P *p, gvar_t *g, node_t *gdecl, loc_t *l);
node_t *cx_gvar_constructed(P *p, gvar_t *g, loc_t *l);

/* ---- hooks the rest of the parser calls (one line each there) ---- */
type_t *cxx_class_spec(P *p, bool is_union, bool is_class); /* after 'struct'/'class' */
bool cxx_struct_is_class(P *p);                             /* the body has C++ members */
void cxx_tag_type(P *p, type_t *t);                         /* C++: the tag names the type */
void cxx_enum_tag_type(P *p, type_t *t, const char *tag);
type_t *cxx_type_after_name(P *p, type_t *t, loc_t *l);     /* decl_specs: Tmpl<args> */
bool cxx_declarator_ctor(P *p, type_t *t);                  /* `T x(args)` is a constructor */
bool cxx_declare_init(P *p, node_t *pl, type_t *t, bool has_init, bool global, sym_t *s, ilist_t *decl, ilist_t *o, loc_t *l,
                      node_t *pre);
node_t *cxx_arg(P *p, node_t *a, type_t *t, const char *what);          /* an argument for a class parameter */
node_t *cx_lib_arg(P *p, node_t *a, type_t *t, const char *what);       /* ... for a library method (objects by word) */
node_t *cxx_member(P *p, node_t *e, bool arrow, token_t *nm, loc_t *l0); /* x.f(...), NULL if a field */
node_t *cxx_binary(P *p, int op, node_t *a, node_t *b, loc_t *l);        /* NULL: not a class operand */
node_t *cxx_index(P *p, node_t *base, loc_t *l0);                        /* after '[' */
node_t *cxx_call_object(P *p, node_t *obj, loc_t *l0);                   /* obj(args), after '(' */
node_t *cxx_sym(P *p, sym_t *s, loc_t *l);                               /* S_CXX names in methods */
node_t *cxx_this(P *p, loc_t *l);
node_t *cxx_type_expr(P *p, type_t *t, loc_t *l);       /* T(args), T{args}, Tmpl<..>(args) in an expression */
bool cxx_type_then_args(P *p, int k);                   /* tokens from k: a class name and (args): an expression */
bool cxx_functional_cast_ahead(P *p, int k, bool statement); /* ... a scalar type's name and (expression) */
node_t *cxx_libfn(P *p, const char *name, loc_t *l); /* library function templates; NULL if none */
node_t *cxx_assign(P *p, int op, node_t *lhs, node_t *rhs, loc_t *l);   /* lhs of class type */
node_t *cxx_arg_by_value(P *p, node_t *arg, type_t *pt);                /* a nontrivial argument */
node_t *cxx_call_result(P *p, node_t *call);                            /* a nontrivial result */
node_t *cxx_return_value(P *p, node_t *e, type_t *rt);
void cxx_scope_open(P *p);
node_t *cxx_scope_close(P *p, node_t *body);
void cxx_scope_merge(P *p);
void cxx_full_expr(P *p, ilist_t *o);
bool cxx_method_def(P *p, type_t *ft, token_t *name);   /* float T::f() {...}: defined here */
bool cxx_outofclass_def(P *p);                          /* T::T(...) {...}, T::~T() {...} */
sym_t *lookup_name(P *p, const char *name);                              /* lookup by a name's text (parse.c) */
/* (new/delete and range-for call cxx_new_object, cxx_new_array_init, cxx_destroy,
 * cxx_class_range, cxx_range_var, declared in parse_internal.h) */

#endif
