/* version.h: the collector's version, written into every dump. */
#ifndef PC_VERSION_H
#define PC_VERSION_H
#define PC_VERSION "0.1.0"
#endif
