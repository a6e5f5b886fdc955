/* text.h: free text between the dump's encoding and the command's
 * outputs.
 *
 * Inside the command, free text (census site fields, the FILE and
 * QUALNAME of hot-code keys, labels and the other free-text headers) is
 * always held in the dump's text encoding (src/format/psf_text.h), in
 * its canonical form: one spelling per string, never a NUL, a line
 * break or a separator, so it can sit in keys and C strings.  Readers
 * bring what they read to that form (text_from_dump, text_from_json);
 * writers decode it at the last moment (text_json, text_display).
 *
 * The decoded text is "WTF-8": UTF-8 in which a surrogate code point
 * (a Python string's lone surrogate, or a byte of an undecodable file
 * name as surrogateescape holds it) has its three-byte encoding; a byte
 * that is not UTF-8 at all, read from a version 1 or native dump, is
 * taken as the surrogate U+DC80-U+DCFF that Python's surrogateescape
 * gives it.  JSON carries a surrogate as the escape \uDCxx (valid JSON
 * syntax; Python's json module reads it back as the same str), with one
 * limit of JSON itself: a high surrogate right before a low one reads
 * back as the one character the pair stands for.  Markdown
 * and HTML reports show it as the text \udcxx and control characters as
 * \xNN (docs/CLI.md, "Text in reports").
 */
#ifndef CLI_TEXT_H
#define CLI_TEXT_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* The canonical form of a field of a dump of format version `version`
 * (1: raw text; 2: encoded) as a new string (*len its length), or NULL
 * if a version 2 field has a bad escape. */
char *text_from_dump(int version, const char *s, size_t n, size_t *len);

/* Whether a header's value is free text (held encoded): meta.label,
 * meta.python.sys_version, ... (psf_keys.h). */
int text_header_is_free(const char *key, size_t klen);

/* ---- JSON ---- */

/* Whether s is valid UTF-8 (jansson takes it as it is). */
int text_is_utf8(const char *s);

/* A JSON string of the text enc (canonical form), or NULL if enc does
 * not decode. */
json_t *text_json(const char *enc);
json_t *text_json_n(const char *enc, size_t n);
/* A JSON string of raw bytes (a path from the file system, a message):
 * bytes that are not UTF-8 as surrogates (surrogateescape). */
json_t *text_json_raw(const char *raw);
/* o[k] = v (stolen), k raw text: escaped as surrogates if not UTF-8. */
void text_json_set_raw(json_t *o, const char *k, json_t *v);
/* A count as a JSON integer, or above 2^63-1 as a decimal string. */
json_t *text_json_count(uint64_t n);
/* A JSON string of raw text: itself if UTF-8, else as text_json_raw. */
json_t *text_json_str(const char *s);
/* A JSON array of v[0..n), each as text_json_str. */
json_t *text_json_strs(char *const *v, size_t n);
/* o[decoded enc] = v (stolen).  Returns 0, or -1 if enc does not decode. */
int text_json_set(json_t *o, const char *enc, json_t *v);

/* json_dumpf with the surrogates of text_json strings written as \uXXXX
 * escapes.  Returns as json_dumpf. */
int text_json_dumpf(const json_t *root, FILE *out, size_t flags);

/* json_loadb for documents whose strings may carry lone surrogate
 * escapes (\uDC80 ...), which jansson refuses: they are read into
 * strings that text_from_json understands.  Flags as json_loadb. */
json_t *text_json_loadb(const char *buf, size_t n, size_t flags, json_error_t *err);

/* The canonical form of a JSON string read by text_json_loadb (a new
 * string, or NULL if s is not a string). */
char *text_from_json(const json_t *s);
/* The same for a member name (json_object_iter_key of such a document). */
char *text_from_json_key(const char *key, size_t klen);

/* ---- Markdown, HTML, messages ---- */

/* A new string for display: enc decoded, a surrogate as the text
 * \udcxx, a control character as \xNN.  Never NULL (a field that does
 * not decode is shown as it is). */
char *text_display(const char *enc);
/* The same for a part enc[0..n). */
char *text_display_n(const char *enc, size_t n);

#endif
