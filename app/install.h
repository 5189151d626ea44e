/* `icuda --install`: writes the kernelspec (kernel.json and the logos) where
 * jupyter looks for kernels. */
#ifndef ICUDA_INSTALL_H
#define ICUDA_INSTALL_H

typedef enum install_where { INSTALL_USER, INSTALL_SYS_PREFIX, INSTALL_PREFIX } install_where_t;

/* prefix is used for INSTALL_PREFIX. Returns 0, or 1 with a message on stderr. */
int install_kernelspec(install_where_t where, const char *prefix);

#endif
