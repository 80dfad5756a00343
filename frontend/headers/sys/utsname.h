// <sys/utsname.h> as kern provides it: struct utsname with glibc's fields (65 bytes each) and
// uname(). A program run by kern sees one fixed system, the same on every machine, so that
// its output does not depend on where it runs: sysname "Linux" and machine "x86_64" (the host
// kern models: x86-64 Linux, as nvcc's host compiler targets), nodename "kern", release
// "kern", version "kern". See docs/headers.md.
#ifndef KERN_SYS_UTSNAME_H
#define KERN_SYS_UTSNAME_H

#include <string.h>

#define _UTSNAME_LENGTH 65

struct utsname {
  char sysname[_UTSNAME_LENGTH];
  char nodename[_UTSNAME_LENGTH];
  char release[_UTSNAME_LENGTH];
  char version[_UTSNAME_LENGTH];
  char machine[_UTSNAME_LENGTH];
  char domainname[_UTSNAME_LENGTH];
};

// Fills *name; 0, or -1 for a null pointer (glibc's EFAULT).
static inline int uname(struct utsname *name) {
  if (name == NULL)
    return -1;
  strcpy(name->sysname, "Linux");
  strcpy(name->nodename, "kern");
  strcpy(name->release, "kern");
  strcpy(name->version, "kern");
  strcpy(name->machine, "x86_64");
  strcpy(name->domainname, "(none)");
  return 0;
}

#endif
