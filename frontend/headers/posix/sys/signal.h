// <sys/signal.h>: <signal.h>.
#include <signal.h>
