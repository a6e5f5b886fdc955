/* psf_version.h: the version of pystats, the one definition: the
 * collector writes it into every dump (pystats.collector), the command
 * prints it (--version) and names it in every report. */
#ifndef PSF_VERSION_H
#define PSF_VERSION_H
#define PSF_VERSION "0.1.0"
#endif
