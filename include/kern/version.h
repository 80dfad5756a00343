/* kern version numbers. */
#ifndef KERN_VERSION_H
#define KERN_VERSION_H

#define KERN_VERSION_MAJOR 0
#define KERN_VERSION_MINOR 1
#define KERN_VERSION_PATCH 0
#define KERN_VERSION_STRING "0.1.0"

#endif
