/* The built-in library assembled: implementations register by name, their C
 * types come from the prototypes below (parsed by the interpreter's own
 * parser), and the standard headers' macros and types are predefined, so
 * #include of a standard header needs to do nothing; then the C++ library's
 * classes (cxx_*.c). */
#include <stdlib.h>
#include <string.h>
#include "cxx_lib.h"
#include "runtime/base/xalloc.h"

static const char protos[] =
    "typedef unsigned long size_t; typedef long ssize_t; typedef long ptrdiff_t;\n"
    "typedef long intptr_t; typedef unsigned long uintptr_t; typedef long intmax_t; typedef unsigned long uintmax_t;\n"
    "typedef signed char int8_t; typedef short int16_t; typedef int int32_t; typedef long int64_t;\n"
    "typedef unsigned char uint8_t; typedef unsigned short uint16_t; typedef unsigned int uint32_t; typedef unsigned long uint64_t;\n"
    "typedef long clock_t; typedef long time_t; typedef unsigned int uint; typedef unsigned long ulong; typedef unsigned short ushort;\n"
    "typedef struct _IO_FILE FILE;\n"
    "typedef struct dim3 { unsigned int x, y, z; } dim3;\n"
    "int printf(const char *, ...); int fprintf(FILE *, const char *, ...);\n"
    "int sprintf(char *, const char *, ...); int snprintf(char *, size_t, const char *, ...);\n"
    "int puts(const char *); int fputs(const char *, FILE *); int putchar(int); int fputc(int, FILE *); int putc(int, FILE *);\n"
    "int fflush(FILE *); FILE *__icuda_stdout(void); FILE *__icuda_stderr(void);\n"
    "double sqrt(double); double cbrt(double); double fabs(double); double exp(double); double exp2(double);\n"
    "double expm1(double); double log(double); double log2(double); double log10(double); double log1p(double);\n"
    "double sin(double); double cos(double); double tan(double); double asin(double); double acos(double);\n"
    "double atan(double); double sinh(double); double cosh(double); double tanh(double); double asinh(double);\n"
    "double acosh(double); double atanh(double); double floor(double); double ceil(double); double round(double);\n"
    "double trunc(double); double rint(double); double nearbyint(double); double erf(double); double erfc(double);\n"
    "double tgamma(double); double lgamma(double);\n"
    "float sqrtf(float); float cbrtf(float); float fabsf(float); float expf(float); float exp2f(float);\n"
    "float expm1f(float); float logf(float); float log2f(float); float log10f(float); float log1pf(float);\n"
    "float sinf(float); float cosf(float); float tanf(float); float asinf(float); float acosf(float);\n"
    "float atanf(float); float sinhf(float); float coshf(float); float tanhf(float); float asinhf(float);\n"
    "float acoshf(float); float atanhf(float); float floorf(float); float ceilf(float); float roundf(float);\n"
    "float truncf(float); float rintf(float); float nearbyintf(float); float erff(float); float erfcf(float);\n"
    "float tgammaf(float); float lgammaf(float);\n"
    "double pow(double, double); double atan2(double, double); double fmod(double, double); double fmin(double, double);\n"
    "double fmax(double, double); double hypot(double, double); double copysign(double, double); double fdim(double, double);\n"
    "double remainder(double, double); double nextafter(double, double);\n"
    "float powf(float, float); float atan2f(float, float); float fmodf(float, float); float fminf(float, float);\n"
    "float fmaxf(float, float); float hypotf(float, float); float copysignf(float, float); float fdimf(float, float);\n"
    "float remainderf(float, float); float nextafterf(float, float);\n"
    "double fma(double, double, double); float fmaf(float, float, float); double ldexp(double, int); float ldexpf(float, int);\n"
    "double frexp(double, int *); double modf(double, double *);\n"
    "int __icuda_isnan(double); int __icuda_isinf(double); int __icuda_isfinite(double); int __icuda_signbit(double);\n"
    "long lround(double); long long llround(double); long lrint(double);\n"
    "float __builtin_inff(void); float __builtin_nanf(const char *);\n"
    "void *malloc(size_t); void *calloc(size_t, size_t); void free(void *); void *realloc(void *, size_t);\n"
    "int rand(void); void srand(unsigned int); int abs(int); long labs(long); long long llabs(long long);\n"
    "intmax_t imaxabs(intmax_t);\n"
    "int atoi(const char *); long atol(const char *); long long atoll(const char *); double atof(const char *);\n"
    "long strtol(const char *, char **, int); long long strtoll(const char *, char **, int);\n"
    "unsigned long strtoul(const char *, char **, int); unsigned long long strtoull(const char *, char **, int);\n"
    "double strtod(const char *, char **); float strtof(const char *, char **);\n"
    "void qsort(void *, size_t, size_t, int (*)(const void *, const void *));\n"
    "void exit(int); void abort(void); void __icuda_assert(int, const char *);\n"
    "time_t time(time_t *); clock_t clock(void); double difftime(time_t, time_t);\n"
    "void *memcpy(void *, const void *, size_t); void *memmove(void *, const void *, size_t);\n"
    "void *memset(void *, int, size_t); int memcmp(const void *, const void *, size_t);\n"
    "size_t strlen(const char *); char *strcpy(char *, const char *); char *strncpy(char *, const char *, size_t);\n"
    "int strcmp(const char *, const char *); int strncmp(const char *, const char *, size_t);\n"
    "char *strcat(char *, const char *); char *strncat(char *, const char *, size_t);\n"
    "char *strchr(const char *, int); char *strrchr(const char *, int); char *strstr(const char *, const char *);\n"
    "char *strdup(const char *);\n"
    "int strcasecmp(const char *, const char *); int strncasecmp(const char *, const char *, size_t);\n"
    "void bzero(void *, size_t);\n"
    "typedef long suseconds_t; struct timeval { time_t tv_sec; suseconds_t tv_usec; };\n"
    "struct timezone { int tz_minuteswest; int tz_dsttime; }; int gettimeofday(struct timeval *, void *);\n"
    "int isalpha(int); int isdigit(int); int isalnum(int); int isspace(int); int isupper(int); int islower(int);\n"
    "int ispunct(int); int isxdigit(int); int isprint(int); int iscntrl(int); int isgraph(int);\n"
    "int toupper(int); int tolower(int);\n"
    "void *bsearch(const void *, const void *, size_t, size_t, int (*)(const void *, const void *));\n"
    "typedef struct { int quot, rem; } div_t; typedef struct { long quot, rem; } ldiv_t;\n"
    "typedef struct { long long quot, rem; } lldiv_t; typedef struct { intmax_t quot, rem; } imaxdiv_t;\n"
    "div_t div(int, int); ldiv_t ldiv(long, long); lldiv_t lldiv(long long, long long);\n"
    "imaxdiv_t imaxdiv(intmax_t, intmax_t); char *strtok(char *, const char *);\n";

/* The C library's prototypes, then CUDA's types (builtins_cuda.c), then the
 * C++ runtime's functions (builtins_cxx.c). */
const char *builtin_prototypes(void) {
    static char *all;
    if (!all) all = xasprintf("%s%s%s", protos, builtin_cuda_prototypes(), builtin_cxx_prototypes());
    return all;
}

static const char macros[] =
    "#define NULL ((void *)0)\n#define EXIT_SUCCESS 0\n#define EXIT_FAILURE 1\n#define RAND_MAX 2147483647\n"
    "#define EOF (-1)\n#define BUFSIZ 8192\n#define CLOCKS_PER_SEC ((long)1000000)\n"
    "#define stdout (__icuda_stdout())\n#define stderr (__icuda_stderr())\n"
    "#define assert(e) __icuda_assert((e) ? 1 : 0, #e)\n"
    "#define offsetof(T, m) ((size_t)&((T *)0)->m)\n"
    "#define isnan(x) __icuda_isnan(x)\n#define isinf(x) __icuda_isinf(x)\n#define isfinite(x) __icuda_isfinite(x)\n"
    "#define signbit(x) __icuda_signbit(x)\n"
    "#define INFINITY (__builtin_inff())\n#define NAN (__builtin_nanf(\"\"))\n"
    "#define HUGE_VAL ((double)__builtin_inff())\n#define HUGE_VALF (__builtin_inff())\n"
    "#define CHAR_BIT 8\n#define SCHAR_MIN (-128)\n#define SCHAR_MAX 127\n#define UCHAR_MAX 255\n"
    "#define CHAR_MIN (-128)\n#define CHAR_MAX 127\n#define SHRT_MIN (-32768)\n#define SHRT_MAX 32767\n"
    "#define USHRT_MAX 65535\n#define INT_MIN (-2147483647 - 1)\n#define INT_MAX 2147483647\n"
    "#define UINT_MAX 4294967295U\n#define LONG_MIN (-9223372036854775807L - 1L)\n#define LONG_MAX 9223372036854775807L\n"
    "#define ULONG_MAX 18446744073709551615UL\n#define LLONG_MIN (-9223372036854775807LL - 1LL)\n"
    "#define LLONG_MAX 9223372036854775807LL\n#define ULLONG_MAX 18446744073709551615ULL\n"
    "#define INT8_MIN (-128)\n#define INT8_MAX 127\n#define UINT8_MAX 255\n#define INT16_MIN (-32768)\n"
    "#define INT16_MAX 32767\n#define UINT16_MAX 65535\n#define INT32_MIN (-2147483647 - 1)\n#define INT32_MAX 2147483647\n"
    "#define UINT32_MAX 4294967295U\n#define INT64_MIN (-9223372036854775807L - 1)\n#define INT64_MAX 9223372036854775807L\n"
    "#define UINT64_MAX 18446744073709551615UL\n#define SIZE_MAX 18446744073709551615UL\n"
    "#define INTPTR_MAX 9223372036854775807L\n#define PTRDIFF_MAX 9223372036854775807L\n"
    "#define FLT_MAX 3.40282346638528859812e+38F\n#define FLT_MIN 1.17549435082228750797e-38F\n"
    "#define FLT_EPSILON 1.19209289550781250000e-7F\n#define DBL_MAX 1.79769313486231570815e+308\n"
    "#define DBL_MIN 2.22507385850720138309e-308\n#define DBL_EPSILON 2.22044604925031308085e-16\n"
    "#define FLT_DIG 6\n#define DBL_DIG 15\n#define FLT_MANT_DIG 24\n#define DBL_MANT_DIG 53\n"
    "#define M_E 2.7182818284590452354\n#define M_LOG2E 1.4426950408889634074\n#define M_LOG10E 0.43429448190325182765\n"
    "#define M_LN2 0.69314718055994530942\n#define M_LN10 2.30258509299404568402\n#define M_PI 3.14159265358979323846\n"
    "#define M_PI_2 1.57079632679489661923\n#define M_PI_4 0.78539816339744830962\n#define M_1_PI 0.31830988618379067154\n"
    "#define M_2_PI 0.63661977236758134308\n#define M_2_SQRTPI 1.12837916709551257390\n#define M_SQRT2 1.41421356237309504880\n"
    "#define M_SQRT1_2 0.70710678118654752440\n"
    "#define __host__\n#define __device__\n"
    "#define INT8_C(c) c\n#define INT16_C(c) c\n#define INT32_C(c) c\n#define INT64_C(c) c ## L\n"
    "#define UINT8_C(c) c\n#define UINT16_C(c) c\n#define UINT32_C(c) c ## U\n#define UINT64_C(c) c ## UL\n"
    "#define PRId64 \"ld\"\n#define PRIu64 \"lu\"\n#define PRIx64 \"lx\"\n#define PRId32 \"d\"\n#define PRIu32 \"u\"\n";

void builtins_register(interp_t *in) {
    builtins_stdio_register(in);
    builtins_math_register(in);
    builtins_stdlib_register(in);
    builtins_string_register(in);
    builtins_cxx_register(in);
    builtins_stdlib2_register(in);
    lex_define_text(in, macros);
    builtins_cuda_register(in);
    pp_predefine(in);
    /* __host__/__device__ are keywords of the lexer; the macros above only
     * make #ifdef __host__ true */
    hmap_del(&in->macros, "__host__");
    hmap_del(&in->macros, "__device__");
}

/* the C++ library's classes, templates and objects (cxx_*.c) */
void cxx_library_register(interp_t *in) {
    cxx_string_register(in);
    cxx_vector_register(in);
    cxx_iostream_register(in);
    cxx_chrono_register(in);
    cxx_random_register(in);
    cxx_limits_register(in);
    cxx_iterator_register(in);
}
