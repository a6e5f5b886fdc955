/* check_table.c: the catalogue of `pystats check`: every check, one row:
 * its stable name, title, reason, severity and, for a check of the whole
 * set, its function (check_set.c).  Checks without a function are made
 * per file by the observer (check_file.c).  To add a check: an id in
 * check_int.h, a row here, its function, and a line in docs/CLI.md.
 *
 * Every finding takes its row's severity, except where the row's reason
 * names two cases and its function picks the severity of each: all-zero (an error when every file
 * is all zero), duplicate-content (a warning for native dumps), on-at-exit and leakage (notes for
 * whole-program collection); per file: pairs-into (a warning when not exact), hits-without-success
 * (a note for CPython summaries).
 */
#include "check_int.h"

#include "../format/psf_keys.h"

#include <stddef.h>

const char *const check_severity_name[CHECK_SEVERITY_COUNT] = {
    "note",
    "warning",
    "error",
};

const ck_info check_info[CK_COUNT] = {
    [CK_NO_FILES] = {"no-files", "no dump files in the inputs",
                     "An empty set is not a measurement of zero: collection never ran, "
                     "the dumps went elsewhere (another PYSTATS_DIR, CPython's fixed "
                     "/tmp/py_stats), a harness hid the environment from the "
                     "processes that ran the code, or the collector is not installed in "
                     "the interpreter that ran it: python -X pystats then writes nothing "
                     "and says nothing ('PYTHON -c \"import pystats_startup\"' tells; "
                     "install with 'PYTHON -m pip install .' in the source tree, or "
                     "'make install PYTHON=PYTHON').",
                     CHECK_ERROR, ck_no_files},
    [CK_UNREADABLE] = {"unreadable", "files that cannot be read",
                       "Their counts are missing from every total.", CHECK_ERROR, NULL},
    [CK_EMPTY] = {"empty", "empty files, or files without counters",
                  "Neither writer leaves such a file: the collector writes nothing "
                  "when nothing was counted and CPython writes every counter. It is "
                  "not a dump at all (no 'key : value' line: a file of another kind "
                  "among the inputs), a dump cut short (a killed writer, a full disk) "
                  "or one read while being written.",
                  CHECK_ERROR, NULL},
    [CK_BINARY] = {"binary", "files with binary data",
                   "A dump is text; a NUL byte means a corrupt file or one that is "
                   "not a dump. The file is not counted.",
                   CHECK_ERROR, NULL},
    [CK_TRUNCATED] = {"truncated", "files cut short (no newline at the end)",
                      "Every dump ends with a newline. A file that does not was cut while "
                      "being written (CPython writes its dumps in place; a writer killed "
                      "or out of space), and the counts after the cut are lost.",
                      CHECK_ERROR, NULL},
    [CK_UNPARSABLE] = {"unparsable", "lines or files that cannot be parsed",
                       "A line that is not 'key : value' with an unsigned count, or JSON "
                       "that does not parse, is not counted: corruption, or not a dump.",
                       CHECK_ERROR, NULL},
    [CK_OVERFLOW] = {"overflow", "counts beyond 2**64-1",
                     "No real counter reaches 2**64: such a value is corrupt. A file whose "
                     "counters would take a sum past it is not counted, so that no total "
                     "is ever capped or wrapped.",
                     CHECK_ERROR, NULL},
    [CK_UNSUPPORTED] = {"unsupported", "unsupported format versions or schemas",
                        "These files were skipped rather than misread.", CHECK_ERROR, NULL},
    [CK_ALL_ZERO] = {"all-zero", "files whose counters are all zero",
                     "Nothing was counted in these processes: CPython 3.12 writes an "
                     "all-zero dump for every process that never switched stats on. A "
                     "set of only such files measured nothing.",
                     CHECK_WARNING, ck_all_zero},
    [CK_MIXED_VERSIONS] = {"mixed-versions", "dumps of different Python versions",
                           "Opcode names and numbers differ between versions: figures of one "
                           "version say nothing about another, and summaries keep them apart. "
                           "One set should come from one interpreter.",
                           CHECK_ERROR, ck_mixed_versions},
    [CK_MIXED_BUILDS] = {"mixed-builds", "dumps of different builds of one version",
                         "sys.version, the git revision or the configure options differ: "
                         "different interpreters (debug, JIT, free-threading, another "
                         "compiler) can execute different instructions for the same code.",
                         CHECK_ERROR, ck_mixed_builds},
    [CK_MIXED_SOURCES] = {"mixed-sources", "native CPython dumps and collector dumps together",
                          "Native dumps count each specialized form, this collector counts "
                          "base instructions: different quantities that are never added "
                          "(compare them family by family).",
                          CHECK_ERROR, ck_mixed_sources},
    [CK_MIXED_FORMATS] = {"mixed-formats", "dumps and JSON summaries together",
                          "A summary made from these same dumps counts them twice.", CHECK_WARNING,
                          ck_mixed_formats},
    [CK_MIXED_MODES] = {"mixed-modes", "different collection modes or counting semantics",
                        "Files that count different things (pystats.counts, "
                        "meta.collection.mode) cannot be added into one figure.",
                        CHECK_ERROR, ck_mixed_modes},
    [CK_MIXED_COLLECTORS] = {"mixed-collectors", "dumps of different collector versions",
                             "What is counted may differ between collector versions; keep one "
                             "set to one collector.",
                             CHECK_WARNING, ck_mixed_collectors},
    [CK_DUP_CONTENT] = {"duplicate-content", "identical files",
                        "A collector dump names its process and times, so two identical "
                        "ones are one dump copied, counted twice. Two identical native "
                        "dumps are a copy too, unless the run was perfectly deterministic.",
                        CHECK_ERROR, ck_dup_content},
    [CK_DUP_PROCESS] = {"duplicate-process", "two dumps of one process and start time",
                        "The collector clears its counts when it writes a dump, so one "
                        "process never writes the same counting period twice: files from "
                        "two copies of one run are mixed.",
                        CHECK_ERROR, ck_dup_process},
    [CK_INEXACT] = {"inexact-counts", "counts the collector knows are not exact",
                    "The collector counts from the events it receives, and another tool "
                    "can take them away or move execution where no event shows it. On "
                    "3.11 a thread has one trace function: one that coverage, a debugger "
                    "or sys.settrace sets while counting replaces the collector's, and "
                    "that thread goes uncounted from then on (" PSF_H_DISPLACED " "
                    "threads). On 3.12+ a trace function that sets frame.f_lineno jumps "
                    "with no event segment counting sees, which miscounts the "
                    "straight-line run around the jump (" PSF_H_LINE_JUMPS "); " PSF_H_DESYNC
                    " counts segment events that did not fit a "
                    "thread's shadow stack, a collector bug; " PSF_H_EVENTS_LOST " "
                    "counts tracing tools started while mode instructions counted, after "
                    "which CPython 3.12 and 3.13 drop its INSTRUCTION events. " PSF_H_INEXACT_CAUSE
                    " says where the first happened.",
                    CHECK_ERROR, NULL},
    [CK_PAIRS_EXCEED] = {"pairs-exceed-executions", "more pairs than executions",
                         "Each execution of an instruction is followed by at most one "
                         "instruction and preceded by at most one, so the pairs starting "
                         "(or ending) with an instruction never exceed its executions "
                         "within one process. Such a file is corrupt, edited, or the sum of "
                         "files that were not summed alike.",
                         CHECK_ERROR, NULL},
    [CK_PAIRS_INTO] = {"pairs-into-mismatch",
                       "pairs into an instruction differ from its executions",
                       "CPython's eval loop (3.11-3.13) records one pair for every counted "
                       "execution, with CACHE as the predecessor at each entry into the "
                       "loop, so the pairs into an instruction equal its executions.",
                       CHECK_ERROR, NULL},
    [CK_LEFTOVER] =
        {"leftover-bounded", "instructions left uncounted, within a bound",
         "A dump written where the collector may not read other threads' "
         "frames (a SIGTERM handler) cannot cut the straight-line runs they "
         "were in: those instructions go uncounted while the pair into each "
         "run was counted. Every loop meets an event, so each such run holds "
         "at most its code object's length: the collector writes the sum as " PSF_H_LEFTOVER_BOUND
         " (with " PSF_H_LEFTOVER_CAUSE " and " PSF_H_LEFTOVER_THREADS
         "), and the pair checks allow that much. A "
         "desync is never a leftover: it stays an error (inexact-counts).",
         CHECK_WARNING, NULL},
    [CK_NO_START] = {"no-sequence-start", "as many pairs as executions",
                     "The first instruction a thread executes after collection starts "
                     "has no predecessor: within one window and thread pairs = "
                     "executions - 1, so a dump has fewer pairs than executions.",
                     CHECK_ERROR, NULL},
    [CK_NO_WINDOW] = {"no-window", "counts with no collection window",
                      "Every count of the collector happens inside a window (on(), "
                      "measure(), a fork child inheriting one), each counted in "
                      "meta.collection.windows.",
                      CHECK_ERROR, ck_no_window},
    [CK_OWN_CACHE] = {"cache-counted", "CACHE counted by the collector",
                      "CACHE entries are never executed; the collector counts executed "
                      "instructions only.",
                      CHECK_ERROR, NULL},
    [CK_OWN_SPECIALIZED] = {"specialized-in-base",
                            "specialized instructions in a base-instructions dump",
                            "The collector names every instruction by its base opcode; a "
                            "specialized name means the file was not written by it, or edited.",
                            CHECK_ERROR, NULL},
    [CK_LINE_SUMS] = {"line-sums", "per-line counts that do not add up to their code's",
                      "A code object's per-line counts and its no-line bucket add up to "
                      "its instructions exactly (FORMAT.md 1.18): a difference is a corrupt "
                      "or edited dump, or a collector bug, and the source view would show "
                      "wrong numbers.",
                      CHECK_ERROR, NULL},
    [CK_TIME_ORDER] = {"time-order", "a dump that ends before it starts",
                       "meta.time.start is taken when counting begins and meta.time.end "
                       "when the dump is written: a corrupt or edited header, or the "
                       "clock stepped back during the run.",
                       CHECK_ERROR, ck_time_order},
    [CK_SIGNAL] = {"killed", "dumps written on SIGTERM",
                   "The process was terminated (Pool.terminate(), a timeout, a "
                   "supervisor): its counts stop wherever the signal hit.",
                   CHECK_WARNING, ck_signal},
    [CK_CENSUS_ERROR] = {"census-missing", "dumps whose census could not be taken",
                         "The collector takes the specialization census at dump time by "
                         "running Python code; when that fails (the program broke what the "
                         "census calls, no memory) the dump has no census and says why "
                         "(" PSF_H_CENSUS_ERROR "): a summary's specialization census is "
                         "short of that process.",
                         CHECK_WARNING, NULL},
    [CK_HITS_NO_SUCCESS] = {"hits-without-successes",
                            "specialization hits with no successful specialization",
                            "A specialized instruction runs only after a specialization "
                            "succeeded. Hits without a success in the same dump mean it "
                            "succeeded before counting began: normal in a fork child "
                            "(specialized in the parent) or a window opened after warm-up, but "
                            "then these families' success and failure figures cover part of "
                            "the run only. In an aggregate of several processes (a summary "
                            "of CPython's summarize_stats.py --json-output, __nfiles__ > 1) it "
                            "is the rule, not a fault: benchmark harnesses (pyperformance's "
                            "pystats hook) turn stats on after warm-up, when the hot "
                            "instructions are specialized already; a note there, a warning "
                            "for a single dump.",
                            CHECK_WARNING, NULL},
    [CK_LEAKAGE] = {"leakage", "startup or harness code counted",
                    "Imports and module-level code (IMPORT_NAME, LOAD_NAME, STORE_NAME, "
                    "LOAD_BUILD_CLASS, ...) run mostly at startup and in harness "
                    "scripts. In a windowed set they indicate, without proving, that a "
                    "window caught startup or harness code (the lines around on() and "
                    "off() at module level count themselves); a benchmark may also "
                    "import or define classes itself. In a whole-program run they are "
                    "the interpreter's startup.",
                    CHECK_WARNING, ck_leakage},
    [CK_ON_AT_EXIT] = {"on-at-exit", "collection still on when the process ended",
                       "Everything until the dump is counted: the intent with -X pystats "
                       "or PYTHONSTATS (the whole program), but in a harness that opens "
                       "windows, one was left open and the interpreter's shutdown "
                       "(atexit handlers, module teardown) is in the counts.",
                       CHECK_WARNING, ck_on_at_exit},
    [CK_PARENT_MISSING] = {"parent-missing", "fork children whose parent's dump is absent",
                           "A fork child counts because its parent was counting, yet no dump "
                           "of the parent is in the set: it was killed without a dump, wrote "
                           "elsewhere, or is still running.",
                           CHECK_NOTE, ck_parent_missing},
    [CK_OS_EXIT] = {"os-exit", "dumps written at os._exit",
                    "os._exit skips atexit handlers and finalization: right for "
                    "multiprocessing workers, which always exit so, but any other "
                    "program's shutdown work is not in its counts.",
                    CHECK_NOTE, ck_os_exit},
    [CK_FORKED] = {"forked", "dumps of fork children",
                   "A fork child's counts start at the fork: the parent's earlier "
                   "work is in the parent's dump, never in the child's.",
                   CHECK_NOTE, ck_forked},
    [CK_WINDOWS] = {"windows", "collection windows per dump",
                    "meta.collection.windows counts on() and measure() starts since the "
                    "last dump: 1 for a whole-program run.",
                    CHECK_NOTE, ck_windows},
    [CK_STARTS] = {"sequence-starts", "(thread, window) starts",
                   "Within one window and one thread pairs = executions - 1, so "
                   "executions - pairs counts the (thread, window) starts: about "
                   "windows x threads. Far more means many threads or short ones; "
                   "fewer than the windows means windows that counted nothing.",
                   CHECK_NOTE, ck_starts},
    [CK_CACHE_PAIRS] = {"cache-pairs", "pairs that start with CACHE",
                        "CPython's eval loop starts each entry (C code calling back into "
                        "Python, a generator resumed from C) with previous opcode 0, which "
                        "is CACHE: these pairs count entries into the loop, not a real "
                        "instruction sequence. Leave them out of pair analyses.",
                        CHECK_NOTE, ck_cache_pairs},
    [CK_SUMMARY_INPUT] = {"summary-input", "JSON summaries checked as sums only",
                          "A summary written by --json holds sums, not the files they came "
                          "from: the checks of each file cannot be made again here. Check "
                          "the dumps themselves.",
                          CHECK_NOTE, ck_summary_input},
    [CK_HIDDEN_TMP] = {"cut-short-temporaries", "hidden temporaries of dumps never finished",
                       "The collector writes each dump to a hidden temporary (.NAME.tmp) "
                       "and renames it when it is whole, so a writer killed mid-dump (a "
                       "SIGKILL, a crash, a full disk) leaves only that hidden file: "
                       "readers skip it and never count half a dump, but what it was "
                       "writing is in no dump, so the set misses that process's last "
                       "counts.",
                       CHECK_WARNING, NULL},
    [CK_FOREIGN] = {"foreign-files", "files of another user in a directory others can write",
                    "Anyone who can write the directory (a shared /tmp/py_stats) can "
                    "add, replace or forge dumps there: files owned by neither you nor "
                    "root may not be what a collector wrote. The collector itself "
                    "never writes into such a directory; use one of your own "
                    "(PYSTATS_DIR, or pystats run).",
                    CHECK_WARNING, NULL},
    [CK_NO_COUNTERS] = {"no-counters", "JSON summaries without a single counter",
                        "Nothing was counted: the summary was made of no dump at all (CPython's "
                        "own report of it shows zero rows and 'Number of data files 0'). The "
                        "run's stats stayed off or its dumps went elsewhere: the build was "
                        "not --enable-pystats, the harness never switched stats on (-X "
                        "pystats, sys._stats_on()), or summarize_stats.py read an empty or "
                        "wrong directory (/tmp/py_stats of another machine or user). It "
                        "measures nothing, not zero.",
                        CHECK_WARNING, NULL},
};
