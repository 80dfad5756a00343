// <malloc.h> as kern provides it: everything <stdlib.h> gives (malloc, free, aligned_alloc,
// posix_memalign... are built in), memalign, and malloc_usable_size, which is the size the
// block was asked for: kern checks every access against exactly that (glibc reports its chunk's
// larger size). See docs/headers.md.
#ifndef KERN_MALLOC_H
#define KERN_MALLOC_H

#include <stddef.h>
#include <stdlib.h>

// glibc's: an alignment that is not a power of two is rounded up to the next one.
static inline void *memalign(size_t alignment, size_t size) {
  return aligned_alloc(alignment, size);
}
static inline size_t malloc_usable_size(void *p) { return __kern_malloc_usable_size(p); }

#endif
