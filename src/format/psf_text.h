/* psf_text.h: the one encoding of free text in dumps (format 2).
 *
 * Free text (file names, qualified names, source lines, labels, other
 * free-text header values) can hold any string Python can: the
 * separators of the line grammar, line breaks, NUL, lone surrogates,
 * undecodable bytes of file names (surrogateescape).  A field holds the
 * UTF-8 encoding of the string, a surrogate code point (U+D800-U+DFFF)
 * encoded as UTF-8 encodes any code point (three bytes ED A0-BF 80-BF,
 * Python's "surrogatepass"), and then each of these bytes written as
 * `%XX` (two uppercase hexadecimal digits):
 *
 *   - `%` itself, the C0 controls 0x00-0x1F and DEL 0x7F, and the bytes
 *     of U+0085, U+2028 and U+2029 (line breaks to some readers);
 *   - `|`, `:`, `[` and `]`, the separators of keys and site fields;
 *   - every byte that is not part of a well-formed UTF-8 sequence of a
 *     Unicode scalar value (so every byte of a surrogate's encoding);
 *   - a space that begins or ends the field.
 *
 * Every other byte is written as it is, so ordinary text stays readable
 * and a dump stays valid UTF-8.  An encoded field never contains a line
 * break, " : ", " | ", ":", "[" or "]", and never begins or ends with a
 * space.  Decoding turns each `%XX` back into its byte; text without `%`
 * decodes to itself.  docs/FORMAT.md 1.16 is the same rule in prose.
 *
 * No Python.h, no allocation: the collector and the command share it.
 * The rule is not assert()ed here: the collector encodes in its dump
 * path, which may run in a SIGTERM handler, where assert()'s report is
 * not async-signal-safe; tests/c/test_text.c and the round-trip
 * property test check it instead.
 */
#ifndef PSF_TEXT_H
#define PSF_TEXT_H

#include <stddef.h>

/* Encode s[0..n) into dst (cap bytes, NUL-terminated when cap > 0).
 * Returns the length of the whole encoding (without NUL): when it is
 * >= cap, dst holds a prefix cut at an escape boundary. */
size_t psf_text_encode(const char *s, size_t n, char *dst, size_t cap);

/* The longest encoding of n bytes: every byte as %XX. */
#define PSF_TEXT_MAX(n) ((n)*3)

/* Decode s[0..n) into dst (room for n bytes; decoding never grows).
 * Returns the decoded length, or (size_t)-1 if a `%` is not followed by
 * two hexadecimal digits (either case).  Other bytes are taken as they
 * are.  dst may alias s. */
size_t psf_text_decode(const char *s, size_t n, char *dst);

/* The value of a hexadecimal digit (either case), or -1. */
int psf_hexval(int c);

/* The length of the well-formed UTF-8 sequence of one Unicode scalar
 * value at s[0..n) (1-4), or 0 if s does not start with one.  With
 * allow_surrogates, the three-byte encodings of U+D800-U+DFFF count too
 * (the decoded form of a field, "WTF-8"). */
size_t psf_utf8_seq(const unsigned char *s, size_t n, int allow_surrogates);

#endif
